import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from './client-address';
import { tooManyAttempts, type RateLimitRule } from './rate-limiter';
import type { RequestOrigin } from './session';

/** The game's two writes a caller can repeat at will. */
export type GameAction = 'vote' | 'join';

export type GameActionRules = Record<GameAction, RateLimitRule>;

/**
 * A flood guard on `castVote` and `joinTournament`, on every edge (GraphQL over HTTP and
 * graphql-ws, `/ws`): per signed-in user, or per client address (an IPv6 one by its /64) for a
 * caller without a session, whose call is refused anyway but still costs a session lookup.
 * A player sends one vote a round and the web app retries it a few times; the rules are far above
 * that, so only a script hammering the game is refused (429 `RATE_LIMITED`, `Retry-After`).
 *
 * Counted in this process's memory, not in Redis: a vote is the hot path, and a Redis round trip
 * per vote for a guard would cost as much as the admission itself. With N gateway replicas a
 * caller spread over all of them gets N times the rule, which still bounds a flood.
 */
export class GameActionLimits {
  private readonly counters: Record<GameAction, RateLimiterMemory>;

  constructor(rules: GameActionRules) {
    const counter = ({ limit, windowMs }: RateLimitRule) =>
      new RateLimiterMemory({ points: limit, duration: Math.max(1, Math.ceil(windowMs / 1000)) });
    this.counters = { vote: counter(rules.vote), join: counter(rules.join) };
  }

  /** Counts one call; throws the 429 AppError when the caller is over the rule. */
  async take(action: GameAction, origin: RequestOrigin): Promise<void> {
    const actor = await origin.session.actor();
    const key = actor ? `user:${actor.userId}` : `ip:${addressKey(origin.ip)}`;
    try {
      await this.counters[action].consume(key);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw tooManyAttempts(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
    }
  }
}
