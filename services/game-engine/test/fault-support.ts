import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import { ComponentGroup } from '@underdog/kit';
import { createMemoryInfrastructure, topics } from '@underdog/platform';
import { GameEventSchema, fromBinary, type GameEvent } from '@underdog/proto';
import type { LiveStore } from '@underdog/store';
import {
  publishRoundOneVotes,
  publishTournamentNews,
  recordGameEvents,
  silentLogger,
  startEngine,
  verified,
  waitFor,
  type TestEngine,
} from './support';

/*
 * What the live store's fault tests share: an engine on a store of the test's own, and a game of
 * three players (ann, bob, cyd) that the store fails in the middle of.
 */

export type GameEventKind = NonNullable<GameEvent['kind']['case']>;
export type GameEventRecorder = Awaited<ReturnType<typeof recordGameEvents>>;

/** The first recorded event of this kind, if there is one yet. */
export const firstEvent = (recorder: GameEventRecorder, kind: GameEventKind) =>
  recorder.events.find((event) => event.kind.case === kind);

export interface EngineOnStore {
  bus: EventBus;
  engine: TestEngine;
  recorder: GameEventRecorder;
  /** Stops the engine, its recorder and the in-memory infrastructure; the store is the test's. */
  stop(): Promise<void>;
}

/**
 * A game engine on `store`, with MongoDB as the in-memory adapter and Kafka too unless `bus` is
 * given (the fault under test is the live store's), and a recorder of its game events.
 */
export async function startEngineOnStore(
  store: LiveStore,
  recorderGroupId: string,
  env: Record<string, string> = {},
  bus?: EventBus,
): Promise<EngineOnStore> {
  const memory = createMemoryInfrastructure(silentLogger);
  const infraGroup = new ComponentGroup(silentLogger, memory.components);
  await infraGroup.start();
  const used = bus ?? memory.bus;
  const engine = await startEngine(
    { bus: used, documents: memory.documents, store, components: [] },
    `engine-${randomUUID()}`,
    env,
  );
  const recorder = await recordGameEvents(used, recorderGroupId);
  return {
    bus: used,
    engine,
    recorder,
    stop: async () => {
      await recorder.stop();
      await engine.group.stop();
      await infraGroup.stop();
    },
  };
}

/** A tournament of `roundSeconds` rounds, created, with these users joined. */
export async function openTournament(
  bus: EventBus,
  engine: TestEngine,
  tournamentId: string,
  roundSeconds: number,
  users: readonly string[],
): Promise<void> {
  await publishTournamentNews(bus, tournamentId, 'created', roundSeconds);
  await waitFor(
    async () => (await engine.app.live.state(tournamentId)) !== undefined,
    'tournament',
  );
  for (const user of users) await engine.app.players.join(verified(user), tournamentId);
}

/** The tournament made live: answers its game's id once round 1's voting has started. */
export async function startGame(
  bus: EventBus,
  recorder: GameEventRecorder,
  tournamentId: string,
  roundSeconds: number,
): Promise<string> {
  await publishTournamentNews(bus, tournamentId, 'live', roundSeconds);
  // The tournament's own events: on a shared Kafka, other files' games publish theirs too.
  const ours = (kind: GameEventKind) =>
    recorder.events.find(
      (event) => event.tournamentId === tournamentId && event.kind.case === kind,
    );
  await waitFor(() => ours('roundVotingStarted') !== undefined, 'round 1');
  return ours('gameStarted')!.gameId;
}

/** Round 1's picks of `publishVotesCydWins`: ann and bob image 1, cyd image 2. */
const CYD_WINS: Array<[userId: string, position: number]> = [
  ['ann', 1],
  ['bob', 1],
  ['cyd', 2],
];

/** ann and bob pick image 1, cyd image 2: image 2 is the least popular, cyd wins alone. */
export const publishVotesCydWins = (bus: EventBus, tournamentId: string, gameId: string) =>
  publishRoundOneVotes(bus, tournamentId, gameId, CYD_WINS);

/**
 * A game of ann, bob and cyd in 3-second rounds, made live, with round 1's votes counted in the
 * store (cyd's will win). Answers the game's id.
 */
export async function playUntilVotesCounted(
  { bus, engine, recorder }: EngineOnStore,
  tournamentId: string,
  /** Round 1's length: long enough that the votes are counted well before its deadline. */
  roundSeconds = 3,
): Promise<string> {
  await openTournament(bus, engine, tournamentId, roundSeconds, ['ann', 'bob', 'cyd']);
  const gameId = await startGame(bus, recorder, tournamentId, roundSeconds);
  await publishVotesCydWins(bus, tournamentId, gameId);
  await waitFor(
    async () => (await engine.app.live.state(tournamentId))?.totalVotes === 3,
    'the votes counted',
  );
  return gameId;
}

/** The game ended as the votes of `publishVotesCydWins` say: round 1 to image 2, cyd the winner. */
export function expectCydWonAlone(recorder: GameEventRecorder): void {
  const results = firstEvent(recorder, 'roundResults')!.kind.value as {
    roundNumber: number;
    winningImageIds: string[];
    results: Array<{ imageId: string; votes: number }>;
  };
  // Who went on follows from each player's pick against the winning images.
  const advanced = CYD_WINS.filter(([, position]) =>
    results.winningImageIds.includes(`round-1-image-${position}`),
  ).map(([userId]) => userId);
  // Every event the game published, in order, so that a failure shows how the game went.
  const story = recorder.events.map((event) => event.kind.case).join(' → ');
  expect({
    round: results.roundNumber,
    votes: results.results.map(({ imageId, votes }) => `${imageId}:${votes}`),
    winningImageIds: results.winningImageIds,
    advanced,
    story,
  }).toMatchObject({
    round: 1,
    votes: ['round-1-image-0:0', 'round-1-image-1:2', 'round-1-image-2:1', 'round-1-image-3:0'],
    winningImageIds: ['round-1-image-2'],
    advanced: ['cyd'],
  });
  expect({ ended: firstEvent(recorder, 'gameEnded')!.kind.value, story }).toMatchObject({
    ended: { winnerUserId: 'cyd', decidedBy: 'last_standing', roundsPlayed: 1 },
  });
}

/**
 * `bus` whose `game.events` publishes pass `gate` first, once per event with its kind: the gate
 * may hold a publish back (a slow bus) or throw (a bus gone) before it reaches the bus.
 */
export function gatedGameEvents(
  bus: EventBus,
  gate: (kind: GameEventKind | undefined) => Promise<void> | void,
): EventBus {
  return new Proxy(bus, {
    get(target, property, receiver) {
      const original = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'publish' || typeof original !== 'function') return original;
      return async (topic: string, messages: Array<{ value?: Uint8Array | null }>) => {
        if (topic === topics.gameEvents.name) {
          for (const message of messages) {
            if (message.value) await gate(fromBinary(GameEventSchema, message.value).kind.case);
          }
        }
        return (original as (...args: unknown[]) => Promise<unknown>).call(target, topic, messages);
      };
    },
  });
}
