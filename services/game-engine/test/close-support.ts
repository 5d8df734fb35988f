import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import {
  ACTIVE_GAMES_KEY,
  disqualifiedKey,
  eliminatePlayers,
  gameKeys,
  type StoredBallot,
  type StoredPlayer,
} from '@underdog/live-game';
import { topics, type Infrastructure } from '@underdog/platform';
import { fromBinary, GameEventSchema, type GameEvent } from '@underdog/proto';
import { chunksOf, type LiveStore } from '@underdog/store';
import { recordGameEvents, startEngine, waitFor, type TestEngine } from './support';

/**
 * A round's close with 25,000 players (issue 35, point 4), in round 1's tally. Its voters, by
 * the first letter of their id (the eliminations go out chunk by chunk of the alive set: in the
 * memory store in id order, a and b first; on Redis in SSCAN's order):
 *
 *   a: 5,000 on image 2   b: 5,000 on image 3   c: 2,000 who did not vote   d: 4,000 on image 1
 *   e: 3,000 on image 0 (e00000 disqualified in this round)   f: 2,000 on image 2   g: 4,000 on image 3
 *
 * Image 0 is the least popular (3,000 against 4,000, 7,000 and 9,000): e goes on but e00000,
 * 22,001 go out. Resolving the round again from what is left after the first elimination step
 * would give another round (in the memory store, with a and b gone, image 2 the least popular at
 * 2,000): a replica that takes the close over there must finish the close that was stored, not
 * resolve another.
 */
const GROUPS: Array<{ letter: string; size: number; image: number | undefined }> = [
  { letter: 'a', size: 5_000, image: 2 },
  { letter: 'b', size: 5_000, image: 3 },
  { letter: 'c', size: 2_000, image: undefined },
  { letter: 'd', size: 4_000, image: 1 },
  { letter: 'e', size: 3_000, image: 0 },
  { letter: 'f', size: 2_000, image: 2 },
  { letter: 'g', size: 4_000, image: 3 },
];
export const DISQUALIFIED = 'e00000';
export const players = GROUPS.flatMap(({ letter, size, image }) =>
  Array.from({ length: size }, (_, i) => ({
    userId: `${letter}${String(i).padStart(5, '0')}`,
    image,
  })),
);
export const advancing = players
  .filter(({ userId, image }) => image === 0 && userId !== DISQUALIFIED)
  .map(({ userId }) => userId);
export const ELIMINATED = players.length - advancing.length;

/**
 * A live game of `players` in round 1's tally, its votes applied — the ballots and the tally, as
 * `applyVote` leaves them: seeded by pipelined writes.
 */
export async function seedRoundInTally(store: LiveStore, tournamentId: string): Promise<void> {
  const keys = gameKeys(tournamentId);
  const now = Date.now();
  const ids = players.map(({ userId }) => userId);
  const voters = players.filter(({ image }) => image !== undefined);
  await store.hSet(keys.state, {
    tournamentStatus: 'live',
    title: 'a large round',
    startAt: now - 60_000,
    roundTimeSeconds: 20,
    gameId: randomUUID(),
    phase: 'tallying',
    round: 1,
    totalRounds: 17,
    startedAt: now - 30_000,
    roundStartedAt: now - 25_000,
    votingEndsAt: now - 5_000,
    phaseEndsAt: now - 4_000,
    participantCount: players.length,
    totalVotes: voters.length,
    drawSeed: 'c'.repeat(64),
    votesEndOffset: '0:0',
  });
  const joined: StoredPlayer = { username: 'player', joinedAt: now - 40_000 };
  const ballot = (image: number): StoredBallot => ({
    imageId: `round-1-image-${image}`,
    castAt: now - 10_000,
    voteId: randomUUID(),
    username: 'player',
    offline: false,
  });
  await Promise.all([
    store.sAddMembers(keys.alive, ids),
    ...[...chunksOf(ids)].map((chunk) =>
      store.hSet(keys.players, Object.fromEntries(chunk.map((id) => [id, JSON.stringify(joined)]))),
    ),
    ...[...chunksOf(voters)].map((chunk) =>
      store.hSet(
        keys.ballots(1),
        Object.fromEntries(
          chunk.map(({ userId, image }) => [userId, JSON.stringify(ballot(image!))]),
        ),
      ),
    ),
    store.hSet(
      keys.tally(1),
      Object.fromEntries(
        [0, 1, 2, 3].map((image) => [
          `round-1-image-${image}`,
          voters.filter((voter) => voter.image === image).length,
        ]),
      ),
    ),
    store.hSet(disqualifiedKey(tournamentId), {
      [DISQUALIFIED]: JSON.stringify({ reason: 'a ring', at: now - 20_000, by: 'admin', round: 1 }),
    }),
  ]);
  await store.sAdd(ACTIVE_GAMES_KEY, tournamentId);
}

/**
 * The bus, noting how many players the store has still in at the moment each `RoundResults` is
 * published: after the results, a snapshot must show no eliminated player as still in.
 */
export function busWatchingResults(bus: EventBus, store: LiveStore, tournamentId: string) {
  const stillInAtResults: number[] = [];
  const publish: EventBus['publish'] = async (topic, messages) => {
    if (topic === topics.gameEvents.name) {
      for (const message of messages) {
        const event = message.value && fromBinary(GameEventSchema, message.value);
        if (event && event.kind.case === 'roundResults') {
          stillInAtResults.push(await store.sCard(gameKeys(tournamentId).alive));
        }
      }
    }
    return bus.publish(topic, messages);
  };
  return {
    bus: new Proxy(bus, {
      get: (target, property) =>
        property === 'publish'
          ? publish
          : (Reflect.get(target, property) as (...args: unknown[]) => unknown).bind(target),
    }),
    stillInAtResults,
  };
}

/** An `eliminatePlayers` step (by name: the engine's copy of the script may be another module's). */
const isElimination = (script: unknown) =>
  (script as { name?: string } | undefined)?.name === eliminatePlayers.name;

/**
 * The store of a replica that freezes at its `freezeAt`th elimination step (that step and every
 * command after it wait, its lease renewals too) until `thaw()`: the lease lapses meanwhile.
 */
export function storeFreezingAtElimination(store: LiveStore, freezeAt: number) {
  let steps = 0;
  let thaw!: () => void;
  const thawed = new Promise<void>((resolve) => (thaw = resolve));
  let frozen = false;
  const frozenStore = new Proxy(store, {
    get: (target, property) => {
      const command = Reflect.get(target, property) as unknown;
      if (typeof command !== 'function') return command;
      const call = (args: unknown[]) =>
        (command as (...a: unknown[]) => unknown).apply(target, args);
      return (...args: unknown[]) => {
        if (property === 'run' && isElimination(args[0]) && ++steps === freezeAt) frozen = true;
        if (!frozen) return call(args);
        if (property === 'sScan' || property === 'hScan') {
          return (async function* () {
            await thawed;
            yield* call(args) as AsyncIterable<unknown>;
          })();
        }
        return thawed.then(() => call(args));
      };
    },
  });
  return { store: frozenStore, thaw, isFrozen: () => frozen };
}

export const roundResultsOf = (events: GameEvent[]) =>
  events.flatMap((event) => (event.kind.case === 'roundResults' ? [event.kind.value] : []));

/** The round closed as resolved: exactly these out, once, announced once. */
export async function expectClosedExactly(
  store: LiveStore,
  tournamentId: string,
  events: GameEvent[],
) {
  const keys = gameKeys(tournamentId);
  const [alive, eliminated, state] = await Promise.all([
    store.sMembers(keys.alive),
    store.hGetAll(keys.eliminated),
    store.hGetAll(keys.state),
  ]);
  expect(alive.sort()).toEqual(advancing);
  expect(Object.keys(eliminated)).toHaveLength(ELIMINATED);
  expect(new Set(Object.values(eliminated))).toEqual(new Set(['1']));
  expect(eliminated[DISQUALIFIED]).toBe('1');
  expect(advancing.filter((userId) => eliminated[userId] !== undefined)).toEqual([]);
  expect(state).toMatchObject({ roundEliminated: String(ELIMINATED), closing: '' });
  const results = roundResultsOf(events);
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({
    roundNumber: 1,
    winningImageIds: ['round-1-image-0'],
    eliminatedCount: ELIMINATED,
    remainingCount: advancing.length,
    totalVotes: 23_000,
  });
  expect(results[0]!.results.map(({ votes }) => votes)).toEqual([3_000, 4_000, 7_000, 9_000]);
}

/**
 * Replica a stores the close, makes the first elimination step (a and b: 10,000 out) and freezes
 * at the second; its lease lapses and replica b takes the game over and finishes the close.
 * The engines started go into `engines` (the caller stops them).
 */
export async function closeTakenOverMidElimination(
  infrastructure: Infrastructure,
  engines: TestEngine[],
): Promise<void> {
  const { store, bus } = infrastructure;
  const tournamentId = randomUUID();
  const recorder = await recordGameEvents(bus, `close-at-scale-${randomUUID()}`);
  await seedRoundInTally(store, tournamentId);
  const watched = busWatchingResults(bus, store, tournamentId);
  const freezing = storeFreezingAtElimination(store, 2);
  const env = { GAME_LEASE_TTL_MS: '200' };
  engines.push(
    await startEngine(
      { ...infrastructure, store: freezing.store, bus: watched.bus },
      'engine-a',
      env,
    ),
  );
  await waitFor(() => freezing.isFrozen(), "replica a's second elimination step", 30_000);
  const keys = gameKeys(tournamentId);
  // Some went out in the first step, not all of them: the close stopped part-way.
  const stillIn = await store.sCard(keys.alive);
  expect(stillIn).toBeLessThan(players.length);
  expect(stillIn).toBeGreaterThan(advancing.length + 1);
  expect(await store.hGet(keys.state, 'closing')).toContain('"round":1');
  engines.push(await startEngine({ ...infrastructure, bus: watched.bus }, 'engine-b', env));
  await waitFor(() => roundResultsOf(recorder.events).length > 0, 'round 1 results', 30_000);
  // Replica a comes back: its step is fenced out, it publishes nothing. The game goes on.
  freezing.thaw();
  await waitFor(
    () => recorder.events.some((event) => event.kind.case === 'roundVotingStarted'),
    'round 2',
    30_000,
  );
  await expectClosedExactly(store, tournamentId, recorder.events);
  expect(watched.stillInAtResults).toEqual([advancing.length]);
  await recorder.stop();
}
