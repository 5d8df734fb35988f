import type { Component, Logger } from '@underdog/kit';
import type { AdvertisementRepository, CatalogState } from './adapters/advertisement-repository';
import type { CatalogTopic } from './adapters/catalog-topic';

/** More rounds than this means the ad is being edited in a loop; the next resync finishes it. */
const MAX_ROUNDS = 5;

/**
 * Keeps `ads.catalog` in step with the `advertisements` collection.
 *
 * Every write marks the ad `catalogPending` in the same atomic document update, then calls
 * `sync`. `sync` publishes the ad's current state and reads the ad again: if it changed
 * meanwhile (another replica's write, whose message may have landed before ours), it publishes
 * again. So the last message for a key always matches the stored ad, whatever the interleaving,
 * and only then is the mark cleared. A publish that fails (Kafka down) leaves the mark, and the
 * periodic resync finishes the job: the change reaches the catalog at least once, never lost.
 */
export class CatalogSync {
  constructor(
    private readonly repository: AdvertisementRepository,
    private readonly topic: CatalogTopic,
    private readonly logger: Logger,
  ) {}

  /**
   * After a write: brings the catalog up to date for this ad. Never throws: the write is already
   * committed, and a failed publication stays pending for the resync.
   */
  async afterWrite(id: string): Promise<void> {
    try {
      await this.sync(id);
    } catch (error) {
      this.logger.warn(
        { err: error, advertisementId: id },
        'ads.catalog publication failed; the resync will retry it',
      );
    }
  }

  /** Publishes every ad still marked pending (after a failed publish or a crash). */
  async resyncPending(): Promise<void> {
    let ids: string[];
    try {
      ids = await this.repository.catalogPendingIds();
    } catch (error) {
      this.logger.warn({ err: error }, 'ads.catalog resync could not read pending ads');
      return;
    }
    for (const id of ids) await this.afterWrite(id);
  }

  /** Resyncs at start (a crash may have left work) and every `intervalMs` after. */
  resyncComponent(intervalMs: number): Component {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    const tick = () => {
      // One pass at a time; resyncPending never rejects.
      running ??= this.resyncPending().finally(() => {
        running = undefined;
      });
    };
    return {
      name: 'ads-catalog-resync',
      start: async () => {
        timer = setInterval(tick, intervalMs);
        timer.unref();
        tick();
      },
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
  }

  private async sync(id: string): Promise<void> {
    let published: string | undefined;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const state = await this.repository.catalogState(id);
      const current = state.kind === 'live' ? `live:${state.revision}` : 'gone';
      if (current === published) {
        await this.settle(id, state);
        return;
      }
      if (state.kind === 'live') await this.topic.publishSnapshot(state.advertisement);
      else await this.topic.publishTombstone(id);
      published = current;
    }
    throw new Error(`advertisement ${id} kept changing while it was being published`);
  }

  /** The catalog's last word on the ad matches the store: clear the mark, or drop a deleted ad. */
  private async settle(id: string, state: CatalogState): Promise<void> {
    switch (state.kind) {
      case 'live':
        await this.repository.markCatalogSynced(id, state.revision);
        return;
      case 'deleted':
        await this.repository.purge(id, state.revision);
        return;
      case 'gone':
        return;
    }
  }
}
