// What a player driver is given and what it reports back: the same in this process and over
// the worker processes' IPC (`worker.ts`).
import type { AppOperations } from './app-operations';
import type { Arrival } from './arrival';

/**
 * How the players talk to the gateway: `graphql-ws`, the web app's own transport (the
 * `graphql-transport-ws` subprotocol on `/graphql`, castVote over the socket), or `ws`, the
 * spec's legacy `/ws` socket.
 */
export type DriverProtocol = 'graphql-ws' | 'ws';

export const driverProtocols: readonly DriverProtocol[] = ['graphql-ws', 'ws'];

/**
 * What every bench player sends as its browser (issue 36 point 6): the gateway hashes the
 * User-Agent into the fair-play signals, so a bench without it skips work a browser costs.
 */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

/** A `--protocol` value, or a clear error naming the choices. */
export function driverProtocol(value: string | undefined): DriverProtocol {
  const found = driverProtocols.find((protocol) => protocol === (value ?? 'graphql-ws'));
  if (!found) throw new Error(`--protocol: ${driverProtocols.join(' or ')}`);
  return found;
}

/** One seeded player: the session its socket carries and the device it plays from. */
export interface DriverPlayer {
  username: string;
  sessionId: string;
  deviceId: string;
  /** Which tournament it plays (its index in `tournamentIds`). */
  tournament: number;
  /** Which gateway replica it connects to first (its index in `gatewayUrls`). */
  gateway: number;
}

export interface DriverOptions {
  /**
   * The gateways' addresses. A player starts on its own (`DriverPlayer.gateway`) and, when a
   * socket fails or is closed under it, tries the next one of the list, as a load balancer in
   * front of the replicas would send a browser's next attempt elsewhere.
   */
  gatewayUrls: string[];
  cookieName: string;
  tournamentIds: string[];
  players: DriverPlayer[];
  /** Loopback source addresses to connect from (127.0.0.2, …): each has its own port range. */
  sourceAddresses: string[];
  /** Votes are cast at a random moment in the first `voteSpread` of the voting window (0–1). */
  voteSpread: number;
  /** How those moments are drawn (`voteDelayMs`); default uniform. */
  arrival?: Arrival;
  /** Upgrades in flight at once while connecting. */
  connectConcurrency: number;
  /** The transport the players use (default `graphql-ws`, the web app's). */
  protocol?: DriverProtocol;
  /** The web app's operations as it prints them (`appOperations()`; required for graphql-ws). */
  operations?: AppOperations;
  /**
   * Reconnect a player whose socket the server or the network closed before its round's
   * results, as the web app does: after `delayMs` (the spec's 3 s) ± a third, on the next
   * gateway of the list, resubscribing (the reconnect storm). Without it a drop is counted and
   * the player is done.
   */
  reconnect?: { delayMs: number };
}

/**
 * What a player's vote was when its socket was closed under it: none yet (or chosen and not
 * sent), acknowledged, refused, or sent and unanswered (`in-flight`: sent again once back, as
 * graphql-ws does with an operation that had no answer).
 */
export type VoteAtDrop = 'none' | 'acked' | 'refused' | 'in-flight';

/** What one player saw of its round. */
export interface PlayerOutcome {
  username: string;
  tournament: number;
  /** The gateway it connected to first (index in `gatewayUrls`). */
  gateway: number;
  /** The image it voted for, when it sent a vote. */
  votedImageId?: string;
  /** ms from sending the vote (again, when it was resent after a reconnect) to its answer. */
  ackMs?: number;
  /** When the vote was first sent (epoch ms): lines slow answers up with what happened then. */
  votedAt?: number;
  /** `vote_processed`, or the refusal's code. */
  answer?: string;
  /** ms from the round's deadline (`phaseEndsAt` of its voting) to its `results_started`. */
  resultsMs?: number;
  /** When it first had its snapshot (epoch ms): in the game from then on. */
  inAt?: number;
  /** Times a full gateway turned it away (close 1013, the waiting room). */
  turnedAway?: number;
  /** When its socket was first closed under it, before its results (epoch ms). */
  droppedAt?: number;
  /** Its vote's state at that moment. */
  voteAtDrop?: VoteAtDrop;
  /** When it had its snapshot again after that drop (epoch ms), and on which gateway. */
  backAt?: number;
  backOn?: number;
  /** Its own vote as that snapshot told it (`player.voteImageId`). */
  snapshotVote?: string | null;
  /** Connection attempts after the drop (1 when the first retry got it back). */
  reconnectAttempts?: number;
}

/** Round 1's results as the engine tallied them (from the first `results_started` seen). */
export interface Tally {
  totalVotes: number;
  votes: Record<string, number>;
  /**
   * When the engine resolved the round, in ms after the close of voting (deadline + grace):
   * `phaseEndsAt` − `duration` of `results_started`. The rest of a player's results latency is
   * the way from the engine to the socket.
   */
  resolvedAfterCloseMs: number;
  /** The close of voting (deadline + grace), epoch ms: what `--cpu-timeline` lines up with. */
  closedAt: number;
}

export interface DriverReport {
  /**
   * This driver's own event-loop delay over the round (ms, p99 and max; one entry per driver
   * process): a pause of the driver delays every answer it reads, and shows as server latency.
   */
  loopDelayMs: Array<{ p99: number; max: number }>;
  /** Per tournament index, the engine's tally of round 1 (absent when no results came). */
  tallies: Record<number, Tally>;
  /** Players that had their snapshot (got in) at some point. */
  connected: number;
  connectFailures: number;
  /** Sockets closed by the server or the network before the round's results, not reconnected. */
  dropped: number;
  /** HTTP reads that failed (the graphql-ws players' `liveGame`): must be 0. */
  httpFailures: number;
  outcomes: PlayerOutcome[];
}

/** What `start()` saw: players in, turned away by a full gateway (still retrying), failed. */
export interface StartReport {
  connected: number;
  waiting: number;
  failed: number;
  /** Why connections failed, by reason (the first 200 characters of each error). */
  failures: Record<string, number>;
  openMs: number[];
  snapshotMs: number[];
}
