import type { LiveGame } from '@underdog/proto';
import type { RequestOrigin } from '../session';

/** A vote as both real-time edges pass it on (the engine's answer echoes it). */
export interface VoteRequest {
  tournamentId: string;
  roundNumber: number;
  imageId: string;
}

/**
 * What the real-time edges need from the game (implemented by `Games`, gateway/src/games.ts):
 * the snapshot a subscriber starts from and the vote. Refusals are AppErrors with a reason.
 */
export interface LiveGamePort {
  vote(origin: RequestOrigin, vote: VoteRequest): Promise<VoteRequest>;
  liveGame(origin: RequestOrigin, tournamentId: string): Promise<LiveGame>;
}

/** The bounds that keep one connection from costing the gateway more than its share. */
export interface RealtimeLimits {
  /** Largest client frame accepted; a bigger one closes the connection with 1009. */
  maxPayloadBytes: number;
  /**
   * A connection whose unsent data passes this is dropped (slow or stuck reader): the most a
   * connection holds in the gateway's memory is this plus one event's frames.
   */
  maxBufferedBytes: number;
  /** Ping interval; a connection that did not answer the previous ping is terminated. */
  heartbeatMs: number;
  /** Client messages per second a connection may send, with a burst of `messageBurst`. */
  messagesPerSecond: number;
  messageBurst: number;
  /** How long a visitor's or an unverified player's session lookup is reused (then read again). */
  sessionTtlMs: number;
  /**
   * How long a verified player's lookup is reused before it is read again in the background (the
   * action goes on with the one it has): a logout elsewhere shows on an open socket within this.
   */
  verifiedSessionTtlMs: number;
  /** A session lookup older than this is never used: the action waits for a fresh one. */
  sessionMaxAgeMs: number;
  /**
   * Sockets written per turn of the event loop when one event goes to many: between slices the
   * votes that arrived meanwhile are handled (`SlicedFanOut`).
   */
  fanOutSliceSize: number;
  /**
   * A live vote total (`vote_received`) reaches a tournament's sockets over about this long
   * (ms) rather than in one burst, so the votes arriving meanwhile are not held up (0: a burst).
   */
  voteTotalSpreadMs: number;
  /**
   * A tournament followed by more than this many subscribers gets its live vote total at most
   * once per `voteTotalCoalescedEveryMs` (the newest one; the last one before the voting closes
   * always goes, with `voting_ended`); a smaller audience gets every total the engine publishes
   * (once a second). Each total is a frame and a write per socket: 15 of a round's 20.
   */
  voteTotalCoalesceAbove: number;
  voteTotalCoalescedEveryMs: number;
  /**
   * How long (ms) a `round_completed` waits for what the engine publishes right after it (the
   * between-rounds advertisement, the next round's voting, the game's end), so a socket gets the
   * end of a round in one write; it goes alone once this passed (0: at once).
   */
  endOfRoundLingerMs: number;
  /**
   * A tournament change (the list, `tournament_live`/`tournament_finished`) reaches the sockets
   * that do not watch that tournament over about this long (ms): for them it is news for the
   * list. The tournament's own watchers get it at once, before its game's next events.
   */
  tournamentNewsSpreadMs: number;
  /**
   * How long a new socket may send nothing (WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS): graphql-ws
   * without `connection_init`, `/ws` without a first message; then it is closed with 4408.
   */
  firstMessageTimeoutMs: number;
  /** Live graphql-ws subscriptions one socket may hold (WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET). */
  maxSubscriptionsPerSocket: number;
}

export const defaultRealtimeLimits: RealtimeLimits = {
  maxPayloadBytes: 64 * 1024,
  maxBufferedBytes: 1024 * 1024,
  heartbeatMs: 30_000,
  messagesPerSecond: 10,
  messageBurst: 20,
  sessionTtlMs: 60_000,
  verifiedSessionTtlMs: 10 * 60_000,
  sessionMaxAgeMs: 15 * 60_000,
  fanOutSliceSize: 500,
  voteTotalSpreadMs: 200,
  voteTotalCoalesceAbove: 1_000,
  voteTotalCoalescedEveryMs: 3_000,
  endOfRoundLingerMs: 50,
  tournamentNewsSpreadMs: 250,
  firstMessageTimeoutMs: 5_000,
  maxSubscriptionsPerSocket: 4,
};
