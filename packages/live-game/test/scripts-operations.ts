import fc from 'fast-check';
import type { LiveStore } from '@underdog/store';
import {
  acquireLease,
  admitVote,
  advanceGame,
  applyVote,
  createGame,
  joinGame,
  raiseMark,
  releaseLease,
  releaseVote,
  settleVote,
} from '../src';

/**
 * Random sequences of the game's scripts over one small game (three players, two devices, two
 * rounds), with direct writes of the state's fields between them so every branch is reached:
 * run on two stores, they must give the same replies and leave the same keys.
 */
/** One of `choices`, each as often as its weight says. */
function weighted<T>(...choices: Array<[T, number]>): fc.Arbitrary<T> {
  return fc.oneof(...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));
}
const user = fc.constantFrom('u1', 'u2', 'u3');
const device = fc.constantFrom('', 'd1', 'd2');
const round = weighted([1, 4], [2, 1], [0, 1]);
const image = fc.constantFrom('round-1-image-0', 'round-1-image-1');
const time = weighted([0, 2], [500, 2], [1000, 1], [1001, 1]);
const gameId = weighted(['g1', 4], ['g2', 1]);
const voteId = fc.constantFrom('v1', 'v2', 'v3');
const phase = fc.constantFrom('waiting', 'voting', 'voting_ended', 'results', 'finished');
const stateField: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constant('tournamentStatus'), fc.constantFrom('upcoming', 'live', 'ended')),
  fc.tuple(fc.constant('gameId'), fc.constantFrom('', 'g1', 'g2')),
  fc.tuple(fc.constant('phase'), phase),
  fc.tuple(fc.constant('round'), fc.constantFrom('0', '1', '2')),
  fc.tuple(fc.constant('votingEndsAt'), fc.constantFrom('0', '500', '1000')),
  fc.tuple(fc.constant('votesEndOffset'), fc.constantFrom('', '12')),
);

export const scriptOperation = fc.oneof(
  { weight: 1, arbitrary: fc.record({ op: fc.constant('set' as const), field: stateField }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('people' as const),
      players: fc.subarray(['u1', 'u2', 'u3']),
      alive: fc.subarray(['u1', 'u2', 'u3']),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('join' as const),
      user,
      device,
      now: time,
      mode: fc.constantFrom('live', 'offline'),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('admit' as const),
      user,
      round,
      image,
      now: time,
      device,
      voteId,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('release' as const), user, round, image }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('apply' as const),
      gameId,
      voteId,
      user,
      round,
      image,
      castAt: time,
      mark: fc.option(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom('', '0', '2', '4'))),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('settle' as const),
      gameId,
      round,
      voteId,
      user,
      image,
      produced: fc.constantFrom('0', '1'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('create' as const), gameId }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('acquire' as const), owner: fc.constantFrom('a', 'b') }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('releaseLease' as const),
      owner: fc.constantFrom('a', 'b'),
      token: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('advance' as const),
      token: fc.constantFrom('', '1', '2'),
      phase: fc.oneof(fc.constant('*'), phase),
      round: fc.constantFrom('0', '1', '2'),
      fields: fc.array(stateField, { maxLength: 2 }),
      eliminated: fc.uniqueArray(user, { maxLength: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('raise' as const),
      value: fc.integer({ min: 0, max: 6 }),
      after: fc.constantFrom('', '0', '3'),
    }),
  },
);
/**
 * A game already under way (a tournament, maybe a game, a phase and round, some players, some of
 * them alive), then the operations: so the deeper refusals (ELIMINATED, LATE, …) come up often.
 */
const setOf = (field: string, values: string[]) =>
  fc
    .constantFrom(...values)
    .map((value) => ({ op: 'set' as const, field: [field, value] as [string, string] }));
export const scenario = fc
  .tuple(
    fc.subarray([{ op: 'set' as const, field: ['tournamentStatus', 'live'] as [string, string] }]),
    setOf('gameId', ['', 'g1', 'g1', 'g1']),
    setOf('phase', ['waiting', 'voting', 'voting', 'voting', 'voting_ended', 'results']),
    setOf('round', ['0', '1', '1', '1', '2']),
    setOf('votingEndsAt', ['500', '1000']),
    fc.record({
      op: fc.constant('people' as const),
      players: fc.subarray(['u1', 'u2', 'u3']),
      alive: fc.subarray(['u1', 'u2', 'u3']),
    }),
    fc.array(scriptOperation, { minLength: 10, maxLength: 40 }),
  )
  .map(([a, b, c, d, e, f, ops]): ScriptOperation[] => [...a, b, c, d, e, f, ...ops]);

/** Which script answered what, with the values in a reply left out: `admit:OK`, `acquire:token`. */
export function replyCodes(ops: ScriptOperation[], replies: unknown[]): string[] {
  return ops.flatMap((o, i) => {
    if (o.op === 'set' || o.op === 'people') return [];
    const reply = replies[i];
    const code =
      typeof reply === 'string'
        ? reply.split(':', 1)[0]
        : o.op === 'acquire' && reply !== 0
          ? 'token'
          : String(reply);
    return [`${o.op}:${code}`];
  });
}

export type ScriptOperation = typeof scriptOperation extends fc.Arbitrary<infer T> ? T : never;

const K = {
  state: 'g:state',
  players: 'g:players',
  devices: 'g:devices',
  offline: 'g:offline',
  alive: 'g:alive',
  eliminated: 'g:eliminated',
  lease: 'g:lease',
  mark: 'g:mark',
  reserved: (r: number) => `g:reserved:${r}`,
  admitted: (r: number) => `g:admitted:${r}`,
  ballots: (r: number) => `g:ballots:${r}`,
  tally: (r: number) => `g:tally:${r}`,
  voteIds: (r: number) => `g:voteIds:${r}`,
  acknowledged: (r: number) => `g:acknowledged:${r}`,
  held: (r: number) => `g:held:${r}`,
};

function step(store: LiveStore, o: ScriptOperation): Promise<unknown> {
  switch (o.op) {
    case 'set':
      return store.hSet(K.state, { [o.field[0]]: o.field[1] });
    case 'people':
      return Promise.all([
        o.players.length > 0
          ? store.hSet(K.players, Object.fromEntries(o.players.map((u) => [u, `{"u":"${u}"}`])))
          : 0,
        o.alive.length > 0 ? store.sAdd(K.alive, ...o.alive) : 0,
      ]);
    case 'join':
      return store.run(
        joinGame,
        [K.state, K.players, K.devices, K.offline, K.alive],
        [o.user, `{"u":"${o.user}"}`, o.device, o.now, o.mode, '[0]'],
      );
    case 'admit':
      return store.run(
        admitVote,
        [
          K.state,
          K.players,
          K.alive,
          K.devices,
          K.reserved(o.round),
          K.ballots(o.round),
          K.admitted(o.round),
          K.held(o.round),
        ],
        [o.user, o.round, o.image, o.now, o.device, o.voteId],
      );
    case 'release':
      return store.run(releaseVote, [K.reserved(o.round)], [o.user, o.image]);
    case 'apply': {
      const ballot = JSON.stringify({ imageId: o.image, castAt: o.castAt, voteId: o.voteId });
      const keys = [
        K.state,
        K.alive,
        K.ballots(o.round),
        K.tally(o.round),
        K.voteIds(o.round),
        K.reserved(o.round),
      ];
      const args: Array<string | number> = [
        o.gameId,
        o.voteId,
        o.user,
        o.round,
        o.image,
        o.castAt,
        ballot,
      ];
      if (o.mark) {
        keys.push(K.mark);
        args.push(...o.mark);
      }
      return store.run(applyVote, keys, args);
    }
    case 'settle':
      return store.run(
        settleVote,
        [
          K.state,
          K.voteIds(o.round),
          K.ballots(o.round),
          K.reserved(o.round),
          K.admitted(o.round),
          K.acknowledged(o.round),
          K.held(o.round),
        ],
        [o.gameId, String(o.round), o.voteId, o.user, o.image, o.produced],
      );
    case 'create':
      return store.run(createGame, [K.state, K.players, K.alive], [o.gameId, 100, 2]);
    case 'acquire':
      return store.run(acquireLease, [K.lease, K.state], [o.owner, 60_000]);
    case 'releaseLease':
      return store.run(releaseLease, [K.lease], [o.owner, o.token]);
    case 'advance':
      return store.run(
        advanceGame,
        [K.state, K.alive, K.eliminated],
        [o.token, o.phase, o.round, o.fields.length, ...o.fields.flat(), o.round, ...o.eliminated],
      );
    case 'raise':
      return store.run(raiseMark, [K.mark], [String(o.value), o.after]);
  }
}

/** Runs the sequence; the replies (or error codes) and every key the game uses, at the end. */
export async function runOperations(
  store: LiveStore,
  ops: ScriptOperation[],
): Promise<{ replies: unknown[]; keys: Record<string, unknown> }> {
  const replies: unknown[] = [];
  for (const o of ops) {
    replies.push(
      await step(store, o).catch((error: unknown) => `error: ${(error as Error).message}`),
    );
  }
  const keys: Record<string, unknown> = {};
  for (const key of [K.state, K.players, K.devices, K.offline, K.eliminated]) {
    keys[key] = await store.hGetAll(key);
  }
  for (const r of [0, 1, 2]) {
    for (const key of [K.reserved(r), K.admitted(r), K.ballots(r), K.tally(r), K.held(r)])
      keys[key] = await store.hGetAll(key);
    keys[K.voteIds(r)] = (await store.sMembers(K.voteIds(r))).sort();
  }
  keys[K.alive] = (await store.sMembers(K.alive)).sort();
  keys[K.mark] = await store.get(K.mark);
  keys[K.lease] = await store.get(K.lease);
  keys['lease expires'] = (await store.ttlMs(K.lease)) > 0;
  return { replies, keys };
}
