import { createOutboxRelay, type OutboxRelay } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import type { AdvertisementRepository, CatalogState } from './adapters/advertisement-repository';
import type { CatalogTopic } from './adapters/catalog-topic';

/** More rounds than this means the ad is being edited in a loop; the next sweep finishes it. */
const MAX_ROUNDS = 5;

/** Keeps `ads.catalog` in step with the `advertisements` collection; items are ad ids. */
export type CatalogSync = OutboxRelay<string>;

/**
 * The ads' outbox on the one relay (`@underdog/bus` `createOutboxRelay`).
 *
 * Every write marks the ad `catalogPending` in the same atomic document update, then calls
 * `publishNow(id)`. Publishing one ad publishes its current state and reads the ad again: if it
 * changed meanwhile (another replica's write, whose message may have landed before ours), it
 * publishes again. So the last message for a key always matches the stored ad, whatever the
 * interleaving, and only then is the mark cleared (a deleted ad is purged). A publish that fails
 * (Kafka down) leaves the mark, and the relay's sweep (at start, then every `intervalMs`)
 * finishes the job: the change reaches the catalog at least once, never lost.
 */
export function createCatalogSync(
  repository: AdvertisementRepository,
  topic: CatalogTopic,
  logger: Logger,
  intervalMs: number,
): CatalogSync {
  /** Publishes until the catalog's last word on the ad matches the store; returns that state. */
  async function publishUntilStable(id: string): Promise<CatalogState> {
    let published: string | undefined;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const state = await repository.catalogState(id);
      const current = state.kind === 'live' ? `live:${state.revision}` : 'gone';
      if (current === published) return state;
      if (state.kind === 'live') await topic.publishSnapshot(state.advertisement);
      else await topic.publishTombstone(id);
      published = current;
    }
    throw new Error(`advertisement ${id} kept changing while it was being published`);
  }

  /** The catalog matches the store: clear the mark, or drop a deleted ad. */
  async function settle(id: string, state: CatalogState): Promise<void> {
    switch (state.kind) {
      case 'live':
        await repository.markCatalogSynced(id, state.revision);
        return;
      case 'deleted':
        await repository.purge(id, state.revision);
        return;
      case 'gone':
        return;
    }
  }

  return createOutboxRelay({
    name: 'ads-catalog-resync',
    what: 'ads.catalog update',
    intervalMs,
    pending: () => repository.catalogPendingIds(),
    publish: publishUntilStable,
    markDone: settle,
    logContext: (id) => ({ advertisementId: id }),
    logger,
  });
}
