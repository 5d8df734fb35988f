import type { Subscription } from '@underdog/bus';
import { topics, type ServiceDefinition } from '@underdog/platform';
import { GameService } from '@underdog/proto';
import { gameEngineConfig, type GameEngineConfig } from './config';
import { createGameReads } from './persistence';
import { recordsRpc } from './records-rpc';

/**
 * Games, rounds and votes (see README). Skeleton: consumes tournament lifecycle events and keeps
 * the last one seen per tournament in the live store, the path the live round loop will take.
 */
export const gameEngineService: ServiceDefinition<GameEngineConfig> = {
  name: 'game-engine',
  defaultPort: 8083,
  needs: ['bus', 'store', 'documents'],
  config: gameEngineConfig,
  create: ({ infrastructure, logger }) => {
    const { bus, store, documents } = infrastructure;
    const reads = createGameReads(documents);
    let subscription: Subscription | undefined;
    return {
      registerRpc: (router) => router.service(GameService, { ...recordsRpc(reads) }),
      components: [
        {
          name: 'lifecycle-consumer',
          start: async () => {
            subscription = await bus.subscribe({
              groupId: 'game-engine',
              topics: [topics.tournamentLifecycle.name],
              fromBeginning: true,
              handleBatch: async (batch) => {
                for (const message of batch) {
                  // Idempotent: writing the same event twice leaves the same state.
                  await store.hSet(`tournament:${message.key}:lifecycle`, {
                    eventType: message.headers['event-type'] ?? 'unknown',
                    offset: message.offset,
                  });
                  logger.debug({ tournamentId: message.key }, 'lifecycle event seen');
                }
              },
            });
          },
          stop: async () => subscription?.stop(),
        },
      ],
    };
  },
};
