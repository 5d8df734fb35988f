import type { BusMessage, EventBus } from '@underdog/bus';
import { ComponentGroup, createMetricsRegistry } from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
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
import { silentLogger as silentLoggerOf, testContext } from '@underdog/test-support';
import { createGameEngineModule, gameEngineConfig, type GameEngineModule } from '../src';

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
  return encodeEvent(GameVoteEventSchema, event, { key: vote.tournamentId, id: vote.voteId });
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

/** A game engine on shared in-memory infrastructure, with fast results for tests. */
export async function startEngine(
  infrastructure: Infrastructure,
  instanceId: string,
  env: Record<string, string> = {},
): Promise<TestEngine> {
  const app = createGameEngineModule(
    {
      ...testContext(infrastructure, { logger: silentLogger, instanceId }),
      registry: createMetricsRegistry(`engine-${instanceId}`),
    },
    gameEngineConfig({ GAME_RESULTS_SECONDS: '1', GAME_SWEEP_MS: '50', ...env }),
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
