import type { Subscription } from '@underdog/bus';
import { topics, type ServiceDefinition } from '@underdog/platform';
import { notificationConfig, type NotificationConfig } from './config';

/**
 * Messages to people: verification e-mails (see README). Skeleton: consumes notification requests.
 */
export const notificationService: ServiceDefinition<NotificationConfig> = {
  name: 'notification',
  defaultPort: 8085,
  needs: ['bus'],
  config: notificationConfig,
  create: ({ infrastructure, logger }) => {
    const { bus } = infrastructure;
    let subscription: Subscription | undefined;
    return {
      components: [
        {
          name: 'user-events-consumer',
          start: async () => {
            subscription = await bus.subscribe({
              groupId: 'notification',
              topics: [topics.notificationRequests.name],
              fromBeginning: true,
              handleBatch: async (batch) => {
                for (const message of batch) {
                  logger.debug(
                    { userId: message.key, eventType: message.headers['event-type'] },
                    'notification request seen',
                  );
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
