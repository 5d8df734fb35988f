import { expectTypeOf } from 'expect-type';
import {
  defineCollection,
  Schema,
  type Collection,
  type DocumentOf,
  type DocumentStore,
  type Filter,
  type Update,
} from '../src';

const games = defineCollection({
  name: 'games',
  schema: new Schema({
    status: { type: String, enum: ['live', 'ended'] as const, required: true },
    round: { type: Number, required: true, min: 1, max: 17 },
    startedAt: { type: Date, required: true },
    players: { type: [String], required: true },
    prize: new Schema({ amount: { type: Number, required: true } }, { _id: false }),
  }),
  indexes: [{ fields: { status: 1 } }],
});

type Game = DocumentOf<typeof games>;

/** Object literals passed here get TypeScript's excess-property checks. */
const filter = (value: Filter<Game>): Filter<Game> => value;
const update = (value: Update<Game>): Update<Game> => value;

// Checked by `tsc` (the typecheck): the assertions and each @ts-expect-error fail the build.
describe('document types', () => {
  it('infers the document type from the schema: required, enums, optional subdocuments', () => {
    expectTypeOf<Game>().toEqualTypeOf<{
      id: string;
      status: 'live' | 'ended';
      round: number;
      startedAt: Date;
      players: string[];
      prize?: { amount: number } | null | undefined;
    }>();
  });

  it('types a collection by its definition, with no type argument', () => {
    expectTypeOf((store: DocumentStore) => store.collection(games)).returns.toEqualTypeOf<
      Collection<Game>
    >();
  });

  it('accepts the filters the adapters implement and refuses mistyped ones', () => {
    expectTypeOf<{ status: 'live'; round: { $gte: 2; $lt: 5 } }>().toMatchTypeOf<Filter<Game>>();
    expectTypeOf<{ players: 'ann'; 'prize.amount': { $gt: 1 } }>().toMatchTypeOf<Filter<Game>>();
    expectTypeOf<{ id: { $in: string[] }; status: { $nin: ['ended'] } }>().toMatchTypeOf<
      Filter<Game>
    >();
    expectTypeOf<{ prize: { $exists: false } }>().toMatchTypeOf<Filter<Game>>();
    // @ts-expect-error a status that does not exist
    expectTypeOf<{ status: 'paused' }>().toMatchTypeOf<Filter<Game>>();
    // @ts-expect-error a number field compared with a string
    expectTypeOf<{ round: { $gt: 'two' } }>().toMatchTypeOf<Filter<Game>>();
    // @ts-expect-error a field the document does not have
    filter({ colour: 'red' });
  });

  it('accepts the update operators the adapters implement and refuses mistyped ones', () => {
    expectTypeOf<{
      $set: { status: 'ended'; 'prize.amount': 3 };
      $inc: { round: 1 };
      $push: { players: 'bob' };
      $unset: { prize: true };
    }>().toMatchTypeOf<Update<Game>>();
    // @ts-expect-error the id never changes
    update({ $set: { id: 'other' } });
    // @ts-expect-error $inc on a field that is not a number
    update({ $inc: { status: 1 } });
    // @ts-expect-error $push of the wrong element type
    expectTypeOf<{ $push: { players: 3 } }>().toMatchTypeOf<Update<Game>>();
  });
});
