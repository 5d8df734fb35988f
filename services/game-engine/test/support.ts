import { randomUUID } from 'node:crypto';
import type { BusMessage, EventBus } from '@underdog/bus';
import { ComponentGroup, createMetricsRegistry } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import { slotOf, votesKey } from '@underdog/live-game';
import {
  GameEventSchema,
  GameVoteEventSchema,
  TournamentLifecycleEventSchema,
  TournamentSchema,
  TournamentStatus,
  create,
  encodeEvent,
  fromBinary,
  timestampFromDate,
  type GameEvent,
  type MessageInitShape,
} from '@underdog/proto';
import {
  actors,
  silentLogger as silentLoggerOf,
  testContext,
  waitFor,
} from '@underdog/test-support';
import {
  createGameEngineModule,
  gameEngineConfig,
  type GameEngineAdapters,
  type GameEngineModule,
} from '../src';
import type { GameRecords } from '../src/persistence';

export { waitFor } from '@underdog/test-support';

export const silentLogger = silentLoggerOf('game-engine-test');

type LifecycleKind = MessageInitShape<typeof TournamentLifecycleEventSchema>['kind'];

export function tournamentMessage(
  id: string,
  status: TournamentStatus,
  roundTimeSeconds: number,
  prize = '$5,000',
) {
  return create(TournamentSchema, {
    id,
    title: `Tournament ${id}`,
    status,
    startAt: timestampFromDate(new Date()),
    prize,
    participantCount: 0,
    roundTimeSeconds,
  });
}

/**
 * The tournament service's news that a tournament was created (upcoming) or went live, with
 * rounds of `roundTimeSeconds`.
 */
export function publishTournamentNews(
  bus: EventBus,
  tournamentId: string,
  news: 'created' | 'live',
  roundTimeSeconds = 1,
) {
  const status = news === 'created' ? TournamentStatus.UPCOMING : TournamentStatus.LIVE;
  const tournament = tournamentMessage(tournamentId, status, roundTimeSeconds);
  return publishLifecycle(
    bus,
    tournamentId,
    news === 'created'
      ? { case: 'created', value: { tournament } }
      : { case: 'live', value: { tournament } },
    `${tournamentId}:${news}`,
  );
}

export async function publishLifecycle(
  bus: EventBus,
  tournamentId: string,
  kind: LifecycleKind,
  id: string,
) {
  const event = create(TournamentLifecycleEventSchema, {
    tournamentId,
    occurredAt: timestampFromDate(new Date()),
    kind,
  });
  await bus.publish(topics.tournamentLifecycle.name, [
    encodeEvent(TournamentLifecycleEventSchema, event, { key: tournamentId, id }),
  ]);
}

export function voteMessage(vote: {
  tournamentId: string;
  gameId: string;
  voteId: string;
  userId: string;
  roundNumber: number;
  imageId: string;
  castAt?: Date;
}) {
  const event = create(GameVoteEventSchema, {
    tournamentId: vote.tournamentId,
    kind: {
      case: 'voteCast',
      value: {
        voteId: vote.voteId,
        gameId: vote.gameId,
        userId: vote.userId,
        username: vote.userId,
        roundNumber: vote.roundNumber,
        imageId: vote.imageId,
        castAt: timestampFromDate(vote.castAt ?? new Date()),
        deviceId: `device-${vote.userId}`,
      },
    },
  });
  // Keyed like the gateway's: by the voter's slot of the games the test engines create.
  const slots = Number(testVoteSlots().GAME_VOTE_SLOTS ?? 1);
  const key = votesKey(vote.tournamentId, slotOf(vote.userId, slots), slots);
  return encodeEvent(GameVoteEventSchema, event, { key, id: vote.voteId });
}

/** Everything published on `game.events`, decoded, in order. */
export async function recordGameEvents(bus: EventBus, groupId: string) {
  const events: GameEvent[] = [];
  const subscription = await bus.subscribe({
    groupId,
    topics: [topics.gameEvents.name],
    fromBeginning: true,
    handleBatch: async (batch: BusMessage[]) => {
      for (const message of batch) {
        if (message.value) events.push(fromBinary(GameEventSchema, message.value));
      }
    },
  });
  return { events, stop: () => subscription.stop() };
}

export interface TestEngine {
  app: GameEngineModule;
  group: ComponentGroup;
}

/**
 * The vote slots of the games tests create: `UNDERDOG_TEST_VOTE_SLOTS` (e.g. 4) runs a suite with
 * its games' votes over that many slots (docs/adr/0012); unset, the engine's default (1).
 */
export function testVoteSlots(): { GAME_VOTE_SLOTS?: string } {
  const slots = process.env.UNDERDOG_TEST_VOTE_SLOTS;
  return slots ? { GAME_VOTE_SLOTS: slots } : {};
}

/** A game engine on shared in-memory infrastructure, with fast results for tests. */
export async function startEngine(
  infrastructure: Infrastructure,
  instanceId: string,
  env: Record<string, string> = {},
  adapters: GameEngineAdapters = {},
): Promise<TestEngine> {
  const app = createGameEngineModule(
    {
      ...testContext(infrastructure, { logger: silentLogger, instanceId }),
      registry: createMetricsRegistry(`engine-${instanceId}`),
    },
    gameEngineConfig({
      GAME_RESULTS_SECONDS: '1',
      GAME_SWEEP_MS: '50',
      ...testVoteSlots(),
      ...env,
    }),
    adapters,
  );
  const group = new ComponentGroup(silentLogger, app.components);
  await group.start();
  return { app, group };
}

export async function startInfrastructure() {
  const infrastructure = createMemoryInfrastructure(silentLogger);
  const group = new ComponentGroup(silentLogger, infrastructure.components);
  await group.start();
  return { infrastructure, stop: () => group.stop() };
}

/** A verified user's actor, on a device of their own. */
export const verified = (userId: string) => actors.user(userId, { deviceId: `device-${userId}` });

/**
 * A tournament of one-second rounds with these players, made live: its game runs until round 1's
 * voting has started. Answers the game's id.
 */
export async function startOneSecondGame(
  bus: EventBus,
  app: GameEngineModule,
  recorder: Awaited<ReturnType<typeof recordGameEvents>>,
  tournamentId: string,
  users: string[],
): Promise<string> {
  await publishTournamentNews(bus, tournamentId, 'created');
  await waitFor(async () => (await app.live.state(tournamentId)) !== undefined, 'tournament');
  for (const user of users) await app.players.join(verified(user), tournamentId);
  await publishTournamentNews(bus, tournamentId, 'live');
  await waitFor(
    () => recorder.events.some((event) => event.kind.case === 'roundVotingStarted'),
    'round 1',
  );
  return recorder.events.find((event) => event.kind.case === 'gameStarted')!.gameId;
}

/** Round 1 votes on `game.votes`: each user's pick is the image's position. */
export async function publishRoundOneVotes(
  bus: EventBus,
  tournamentId: string,
  gameId: string,
  picks: ReadonlyArray<readonly [userId: string, position: number]>,
) {
  await bus.publish(
    topics.gameVotes.name,
    picks.map(([userId, position]) =>
      voteMessage({
        tournamentId,
        gameId,
        voteId: randomUUID(),
        userId,
        roundNumber: 1,
        imageId: `round-1-image-${position}`,
      }),
    ),
  );
}

/** `records` with some of its writes replaced (the others go to it unchanged). */
export function recordsWith(records: GameRecords, replaced: Partial<GameRecords>): GameRecords {
  return {
    gameStarted: (game) => records.gameStarted(game),
    participantsJoined: (gameId, participants) => records.participantsJoined(gameId, participants),
    roundResolved: (round) => records.roundResolved(round),
    gameEnded: (end) => records.gameEnded(end),
    participantsDisqualified: (gameId, marks) => records.participantsDisqualified(gameId, marks),
    finishedGame: (tournamentId) => records.finishedGame(tournamentId),
    winnerRedecided: (change) => records.winnerRedecided(change),
    ...replaced,
  };
}

/**
 * Who went on from round `round`, sorted, from the live store: the participants not eliminated
 * in it or before (`RoundResults` lists no players; a player's outcome is their own status).
 */
export async function advancedFrom(
  live: GameEngineModule['live'],
  tournamentId: string,
  round: number,
): Promise<string[]> {
  return (await live.participants(tournamentId))
    .filter(({ eliminatedInRound }) => eliminatedInRound === 0 || eliminatedInRound > round)
    .map(({ userId }) => userId)
    .sort();
}
