import type { EventBus, Subscription } from '@underdog/bus';
import type { Component, Logger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  AdvertisementSnapshotSchema,
  fromBinary,
  timestampDate,
  type Advertisement,
} from '@underdog/proto';

export type AdPosition = 'before_game' | 'between_rounds' | 'after_game';

/**
 * The ads the engine may run, from the compacted `ads.catalog` topic, kept in memory. Every
 * replica reads the whole topic in its own group, so each knows every ad.
 */
export class AdsCatalog {
  private readonly ads = new Map<string, Advertisement>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly groupId: string,
    private readonly logger: Logger,
  ) {}

  /** The first active ad of a position (oldest first), if any. */
  pick(position: AdPosition): Advertisement | undefined {
    return [...this.ads.values()]
      .filter((ad) => ad.isActive && ad.displayPosition === position && ad.duration > 0)
      .sort((a, b) => created(a) - created(b) || a.id.localeCompare(b.id))[0];
  }

  component(): Component {
    return {
      name: 'ads-catalog',
      start: async () => {
        this.subscription = await this.bus.subscribe({
          groupId: this.groupId,
          topics: [topics.adsCatalog.name],
          fromBeginning: true,
          handleBatch: async (batch) => {
            for (const message of batch) {
              if (message.value === null) {
                this.ads.delete(message.key);
                continue;
              }
              try {
                const { advertisement } = fromBinary(AdvertisementSnapshotSchema, message.value);
                if (advertisement) this.ads.set(advertisement.id, advertisement);
              } catch (error) {
                this.logger.warn({ err: error, key: message.key }, 'unreadable ads.catalog entry');
              }
            }
          },
        });
      },
      stop: async () => this.subscription?.stop(),
    };
  }
}

function created(ad: Advertisement): number {
  return ad.createdAt ? timestampDate(ad.createdAt).getTime() : 0;
}
