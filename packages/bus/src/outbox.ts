import type { Component, Logger } from '@underdog/kit';

/**
 * The one outbox mechanism (ads' `ads.catalog`, the tournament's `tournament.lifecycle`): a
 * change writes its pending marker in the same atomic document update as the change itself;
 * the relay then publishes it (right after the write) and marks it done. When the publication
 * fails (Kafka down) or the process dies in between, the marker stays, and the relay's sweep —
 * at start and every `intervalMs` after — publishes every pending item again. So a change
 * reaches the bus at least once, never lost; consumers recognise a repeat by its event id.
 *
 * The service says what its items are with three callbacks: which are pending, how one is
 * published, and how it is marked done (the value `publish` returns is handed to `markDone`).
 */
export interface OutboxRelayOptions<Item, Published = void> {
  /** The sweep's component name (logs, `/readyz`). */
  name: string;
  /** Names an item in the log lines, e.g. "lifecycle event". */
  what: string;
  /** How often the sweep runs (it runs at start too). */
  intervalMs: number;
  /** The items still pending, in the order to publish them. */
  pending: () => Promise<readonly Item[]>;
  /** Publishes one item; a throw leaves it pending for the sweep. */
  publish: (item: Item) => Promise<Published>;
  /**
   * Clears the item's marker once it is published. A throw is logged: the item stays pending
   * and is published once more, so `publish` must be repeatable.
   */
  markDone: (item: Item, published: Published) => Promise<void>;
  /** The fields logged about an item. */
  logContext?: (item: Item) => Record<string, unknown>;
  logger: Logger;
}

export interface OutboxRelay<Item> {
  /**
   * After the write: publishes the item and marks it done. Never throws (the write is already
   * committed); false leaves the item pending for the sweep.
   */
  publishNow(item: Item): Promise<boolean>;
  /**
   * One pass over every pending item; returns how many were published. Never throws. One pass
   * at a time: a call while a pass runs waits for it, then makes its own.
   */
  sweep(): Promise<number>;
  /** The periodic sweep as a process component; stopping waits for the running pass. */
  readonly component: Component;
}

export function createOutboxRelay<Item, Published = void>(
  options: OutboxRelayOptions<Item, Published>,
): OutboxRelay<Item> {
  const { logger, what } = options;
  const logContext = options.logContext ?? (() => ({}));
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function publishNow(item: Item): Promise<boolean> {
    let published: Published;
    try {
      published = await options.publish(item);
    } catch (error) {
      logger.warn({ ...logContext(item), err: error }, `${what} not published; will retry`);
      return false;
    }
    try {
      await options.markDone(item, published);
    } catch (error) {
      // Still marked pending: the sweep publishes it once more, with the same event id.
      logger.warn({ ...logContext(item), err: error }, `published ${what} not marked done`);
    }
    return true;
  }

  async function pass(): Promise<number> {
    let items: readonly Item[];
    try {
      items = await options.pending();
    } catch (error) {
      logger.warn({ err: error }, `could not read the pending ${what}s; the next sweep retries`);
      return 0;
    }
    let published = 0;
    for (const item of items) {
      if (await publishNow(item)) published += 1;
    }
    if (items.length > 0) {
      logger.warn({ pending: items.length, published }, `republished pending ${what}s`);
    }
    return published;
  }

  async function sweep(): Promise<number> {
    while (running) await running;
    running = pass().finally(() => {
      running = undefined;
    });
    return running;
  }

  const component: Component = {
    name: options.name,
    start: async () => {
      const tick = () => {
        if (!running) void sweep();
      };
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
      tick();
    },
    stop: async () => {
      clearInterval(timer);
      timer = undefined;
      while (running) await running;
    },
  };

  return { publishNow, sweep, component };
}
