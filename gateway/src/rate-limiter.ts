import { AppError } from '@underdog/kit';
import { redisClientOf, type LiveStore } from '@underdog/store';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/**
 * At most `limit` hits per fixed window of `windowMs`, the window starting at the first hit.
 * Windows are whole seconds (Redis expires the counters by the second).
 */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** One counter: what is counted (e.g. `login:ip:203.0.113.9`) under which rule. */
export interface RateLimitBucket {
  key: string;
  rule: RateLimitRule;
}

/** Slots taken by `RateLimiter.take`; `release` gives them back (e.g. after a login succeeded). */
export interface RateLimitSlots {
  release(): Promise<void>;
}

/** 429 with `Retry-After`: the seconds until the full bucket's window ends. */
export function tooManyAttempts(retryAfterSeconds: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many attempts. Please try again later.', {
    retryAfterSeconds,
  });
}

/**
 * A slot given back this close to its window's end is kept instead: the give-back could reach
 * Redis after the window, and must not count in the next one.
 */
const RELEASE_MARGIN_MS = 50;

/** One slot taken: its counter and when (this process's clock) the window that counted it ends. */
interface Slot {
  counter: RateLimiterAbstract;
  key: string;
  windowEndsAt: number;
}

/**
 * Fixed-window counters kept by rate-limiter-flexible (issue 27 point 4): `RateLimiterRedis` on
 * the Redis store's own connection (`redisClientOf`), so every gateway replica shares them and
 * the keys carry the store's prefix; `RateLimiterMemory` on any other store (standalone: one
 * process, as the memory store is). Both are held to one contract (rate-limiter.contract.ts).
 * Counting is the library's atomic increment: a burst of parallel requests cannot get past the
 * limit between a check and an increment.
 *
 * What the library does not do, kept here: taking from several buckets or none; a refused hit
 * does not count (it is given straight back, so a slot released later can be taken again); and a
 * slot is given back (`reward`) only within the window that counted it, so a release after the
 * window never becomes extra allowance in the next one.
 */
export class RateLimiter {
  private readonly counters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly store: LiveStore,
    /** Keys are `<prefix>:<bucket key>`, under the store's own prefix on Redis. */
    private readonly prefix = 'gateway:ratelimit',
  ) {}

  /**
   * Takes one slot from every bucket, or none: when one bucket is full, the slots already taken
   * are given back and a 429 `RATE_LIMITED` AppError is thrown, saying when that bucket's window
   * ends (`retryAfterSeconds`, at least 1). Store failures reject as they are.
   */
  async take(buckets: readonly RateLimitBucket[]): Promise<RateLimitSlots> {
    const taken: Slot[] = [];
    for (const { key, rule } of buckets) {
      const counter = this.counterFor(rule);
      let outcome: RateLimiterRes;
      try {
        outcome = await counter.consume(key);
      } catch (refusal) {
        await this.give(taken);
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        // The refused hit was counted too: give it back, so it does not hold a slot.
        await this.give([slotOf(counter, key, refusal)]);
        const leftMs = refusal.msBeforeNext > 0 ? refusal.msBeforeNext : rule.windowMs;
        throw tooManyAttempts(Math.max(1, Math.ceil(leftMs / 1000)));
      }
      taken.push(slotOf(counter, key, outcome));
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await this.give(taken);
      },
    };
  }

  private async give(slots: readonly Slot[]): Promise<void> {
    for (const { counter, key, windowEndsAt } of slots) {
      if (Date.now() >= windowEndsAt - RELEASE_MARGIN_MS) continue;
      const after = await counter.reward(key);
      // Below 0: the window ended on the way and the give-back opened a new one. Undo it.
      if (after.consumedPoints < 0) await counter.penalty(key);
    }
  }

  /** One library limiter per rule (its points and duration), all on the same keys. */
  private counterFor(rule: RateLimitRule): RateLimiterAbstract {
    const name = `${rule.limit}/${rule.windowMs}`;
    let counter = this.counters.get(name);
    if (!counter) {
      if (!Number.isInteger(rule.limit) || rule.limit < 0) {
        throw new RangeError(`a rate limit is a whole number ≥ 0, got ${rule.limit}`);
      }
      if (!Number.isInteger(rule.windowMs / 1000) || rule.windowMs < 1000) {
        throw new RangeError(`a rate-limit window is whole seconds ≥ 1 s, got ${rule.windowMs} ms`);
      }
      const options = {
        points: rule.limit,
        duration: rule.windowMs / 1000,
        keyPrefix: this.prefix,
      };
      const client = redisClientOf(this.store);
      counter = client
        ? new RateLimiterRedis({ ...options, storeClient: client })
        : new RateLimiterMemory(options);
      this.counters.set(name, counter);
    }
    return counter;
  }
}

function slotOf(counter: RateLimiterAbstract, key: string, outcome: RateLimiterRes): Slot {
  // msBeforeNext is what the store measured when it counted; no window (-1) means none to keep.
  // Date.now, not the kit's Clock: it is the clock RateLimiterMemory measures its windows with.
  return { counter, key, windowEndsAt: Date.now() + outcome.msBeforeNext };
}
