import { LRUCache } from 'lru-cache';

/**
 * The ids of the last events this process finished with, oldest forgotten first. Bounded, so a
 * long-running process does not grow without limit; the bound only has to cover what can be
 * redelivered in one go (a batch, a rebalance), which is far below it. An `lru-cache` (the one
 * the gateway uses): adding an id again makes it the newest.
 */
export class RecentIds {
  private readonly ids: LRUCache<string, true>;

  constructor(limit = 10_000) {
    this.ids = new LRUCache({ max: limit });
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.set(id, true);
  }
}
