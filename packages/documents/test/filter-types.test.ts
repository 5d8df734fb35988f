import type { CollectionDefinition, DocumentStore, Filter, Update } from '../src';

interface Game {
  id: string;
  status: 'live' | 'ended';
  round: number;
  startedAt: Date;
  players: string[];
  prize?: { amount: number };
}

// Compiled by `tsc` (the typecheck): each @ts-expect-error fails the build if the line compiles.
const filters: Array<Filter<Game>> = [
  { status: 'live', round: { $gte: 2, $lt: 5 } },
  { players: 'ann', 'prize.amount': { $gt: 1 } },
  { startedAt: { $lte: new Date() }, prize: { $exists: false } },
  { id: { $in: ['a', 'b'] }, status: { $nin: ['ended'] } },
  // @ts-expect-error a status that does not exist
  { status: 'paused' },
  // @ts-expect-error a number field compared with a string
  { round: { $gt: 'two' } },
  // @ts-expect-error a field the document does not have
  { colour: 'red' },
];

const updates: Array<Update<Game>> = [
  { $set: { status: 'ended', 'prize.amount': 3 }, $inc: { round: 1 }, $push: { players: 'bob' } },
  { $unset: { prize: true }, $setOnInsert: { startedAt: new Date() } },
  // @ts-expect-error the id never changes
  { $set: { id: 'other' } },
  // @ts-expect-error $inc on a field that is not a number
  { $inc: { status: 1 } },
  // @ts-expect-error $push of the wrong element type
  { $push: { players: 3 } },
];

const games: CollectionDefinition<Game> = { name: 'games', indexes: [{ fields: { status: 1 } }] };

function declare(store: DocumentStore): Promise<Game | null> {
  // The document type comes from the definition: no type argument needed.
  return store.collection(games).findOne({ round: 1 });
}

describe('filter and update types', () => {
  it('accept the MongoDB subset the adapters implement', () => {
    expect(filters.length + updates.length).toBeGreaterThan(0);
    expect(typeof declare).toBe('function');
  });
});
