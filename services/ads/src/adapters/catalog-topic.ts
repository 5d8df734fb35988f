import { randomUUID } from 'node:crypto';
import type { EventBus, OutgoingMessage } from '@underdog/bus';
import { topics } from '@underdog/platform';
import { EventHeader } from '@underdog/proto';
import type { Advertisement } from '../domain/advertisement';
import { encodeSnapshot, snapshotEventType } from '../mapping';

/**
 * The compacted `ads.catalog` topic (key: ad id). A change publishes the ad's snapshot; a delete
 * publishes a tombstone (the key with a null value), which compaction uses to forget the ad.
 */
export class CatalogTopic {
  constructor(private readonly bus: EventBus) {}

  async publishSnapshot(advertisement: Advertisement): Promise<void> {
    await this.publish(advertisement.id, encodeSnapshot(advertisement));
  }

  async publishTombstone(id: string): Promise<void> {
    await this.publish(id, null);
  }

  private async publish(id: string, value: Uint8Array | null): Promise<void> {
    const message: OutgoingMessage = {
      key: id,
      value,
      headers: { [EventHeader.type]: snapshotEventType, [EventHeader.id]: randomUUID() },
    };
    await this.bus.publish(topics.adsCatalog.name, [message]);
  }
}
