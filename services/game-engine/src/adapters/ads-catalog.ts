import { eventConsumer, type EventBus } from '@underdog/bus';
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

  /** Reads the whole compacted topic; a tombstone deletes its ad, an unreadable entry is skipped. */
  component(): Component {
    return eventConsumer(this.bus, {
      name: 'ads-catalog',
      groupId: this.groupId,
      topic: topics.adsCatalog.name,
      decode: (bytes) => fromBinary(AdvertisementSnapshotSchema, bytes),
      handle: async ({ advertisement }) => {
        if (advertisement) this.ads.set(advertisement.id, advertisement);
      },
      onTombstone: async (message) => {
        this.ads.delete(message.key);
      },
      what: 'ads.catalog entry',
      logger: this.logger,
    });
  }
}

function created(ad: Advertisement): number {
  return ad.createdAt ? timestampDate(ad.createdAt).getTime() : 0;
}
