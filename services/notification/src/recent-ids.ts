/**
 * The ids of the last events this process finished with, oldest forgotten first. Bounded, so a
 * long-running process does not grow without limit; the bound only has to cover what can be
 * redelivered in one go (a batch, a rebalance), which is far below it.
 */
export class RecentIds {
  // A Set iterates in insertion order, so its first entry is always the oldest.
  private readonly ids = new Set<string>();

  constructor(private readonly limit = 10_000) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    while (this.ids.size > this.limit) {
      const oldest = this.ids.values().next();
      if (oldest.done) break;
      this.ids.delete(oldest.value);
    }
  }
}
