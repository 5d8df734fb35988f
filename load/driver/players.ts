// Over 300 lines: one player's state across its sockets is one class whose steps all share it.
// The lean load driver: many players, each one socket with its session cookie, spread over
// several loopback source addresses. By default each player does what the web app does
// (`graphql-ws`: the app's transport); `ws` plays the spec's legacy `/ws` socket
// (`player-sockets.ts`). It parses as little as it can (`player-messages.ts`). This module keeps
// each player's state across its sockets: the waits, the reconnects, the vote and its answer.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import {
  FULL_RETRY_JITTER,
  RECONNECT_JITTER_MS,
  SERVER_FULL_CLOSE_CODE,
  SOCKET_RECONNECT_MS,
  fullRetrySeconds,
} from '@underdog/rules';
import type {
  DriverOptions,
  DriverReport,
  PlayerOutcome,
  StartReport,
  Tally,
  VoteAtDrop,
} from './driver-contract';
import { voteDelayMs } from './arrival';
import { VotingStartedCache, ownVoteOf } from './player-messages';
import {
  HttpReads,
  openAppSocket,
  openWsSocket,
  type Seat,
  type SeatHost,
  type SocketEnd,
} from './player-sockets';

/** Spec §9: a closed socket reconnects after 3 s, as the web app does (@underdog/rules). */
export const RECONNECT_DELAY_MS = SOCKET_RECONNECT_MS;

/** The close code of a full gateway (the waiting room): `Server full; retry in N s`. */
export const FULL_CLOSE_CODE = SERVER_FULL_CLOSE_CODE;

/** A reconnect's spread: 3 s ± 1 s, so a crowd dropped at one instant does not return at once. */
export const RECONNECT_JITTER = RECONNECT_JITTER_MS / SOCKET_RECONNECT_MS;

export { FULL_RETRY_JITTER };

/** `ms` ± `share` of it, uniformly (3 s ± a third → 2–4 s). */
export function jittered(ms: number, share: number, random: () => number = Math.random): number {
  return ms * (1 + share * (2 * random() - 1));
}

/** The wait a full gateway's close reason asks for (`retry in N s`), in ms; 10 s if none. */
export function fullRetryMs(reason: string): number {
  return fullRetrySeconds(reason) * 1000;
}

/**
 * Drives `players` through one round: connect and subscribe (`start`), vote once when round 1's
 * voting opens, and record the acknowledgement and the results' arrival (`finished`). A full
 * gateway's 1013 close is a wait: the player tries again after the N s its reason names (± 30 %,
 * as the app does). With `reconnect`, a player whose socket closes comes back on the next gateway.
 */
export class PlayerDriver {
  private readonly sockets = new Set<WebSocket>();
  private readonly outcomes: PlayerOutcome[];
  private readonly seats: Seat[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private connectFailures = 0;
  /** Per connected player: ms to the upgrade's answer, and from there to the snapshot. */
  readonly openMs: number[] = [];
  readonly snapshotMs: number[] = [];
  private dropped = 0;
  private inCount = 0;
  private resultsSeen = 0;
  private onResults: (() => void) | undefined;
  /** The last round_voting_started text parsed, per tournament (all sockets share the text). */
  private readonly voting = new VotingStartedCache();
  private closing = false;
  private readonly tallies: Record<number, Tally> = {};
  /** The HTTP reads (graphql-ws players' `liveGame`). */
  private readonly reads = new HttpReads();
  /** What the player's sockets tell this driver (`player-sockets.ts`). */
  private readonly host: SeatHost;

  constructor(private readonly options: DriverOptions) {
    this.outcomes = options.players.map((player) => ({
      username: player.username,
      tournament: player.tournament,
      gateway: player.gateway,
    }));
    this.seats = options.players.map((player, index) => ({
      index,
      gateway: player.gateway,
      live: false,
      voteSentAt: 0,
      scheduled: false,
      arrived: false,
    }));
    this.host = {
      options,
      reads: this.reads,
      voting: this.voting,
      upgraded: (seat, ms) => {
        if (this.outcomes[seat.index]!.inAt === undefined) this.openMs.push(ms);
      },
      track: (socket, seat, live, refused) => this.track(socket, seat, live, refused),
      snapshot: (seat, text, openedAt) => this.snapshot(seat, text, openedAt),
      hasAnswer: (seat) => this.outcomes[seat.index]!.answer !== undefined,
      answered: (seat, answer) => this.answered(seat, answer),
      votingOpened: (seat, voting) => {
        if (voting.roundNumber !== 1 || seat.scheduled) return;
        seat.scheduled = true;
        this.scheduleVote(seat, voting.round.images, voting.phaseEndsAt);
      },
      results: (seat, text, tally) => this.results(seat, text, tally),
    };
  }

  /**
   * Connects every player and subscribes it; resolves once each has its snapshot, was turned
   * away by a full gateway (it keeps trying in the background), or failed.
   */
  async start(): Promise<StartReport> {
    const { players, connectConcurrency } = this.options;
    let next = 0;
    const failures: Record<string, number> = {};
    const worker = async () => {
      while (next < players.length) {
        const index = next;
        next += 1;
        await this.connect(index).catch((error: unknown) => {
          this.connectFailures += 1;
          const reason = (error instanceof Error ? error.message : String(error)).slice(0, 200);
          failures[reason] = (failures[reason] ?? 0) + 1;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, connectConcurrency) }, worker));
    const waiting = this.outcomes.filter((o) => o.inAt === undefined && o.turnedAway).length;
    return {
      connected: this.inCount,
      waiting,
      failed: this.connectFailures,
      failures,
      openMs: this.openMs,
      snapshotMs: this.snapshotMs,
    };
  }

  /**
   * Resolves when every player that got in got round 1's results (or dropped for good), or
   * after `timeoutMs`. Players still waiting outside a full gateway are not waited for.
   */
  finished(timeoutMs: number): Promise<DriverReport> {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        loop.disable();
        this.onResults = undefined;
        resolve({
          ...this.report(),
          loopDelayMs: [{ p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 }],
        });
      };
      const timer = setTimeout(done, timeoutMs);
      this.onResults = () => {
        if (this.resultsSeen >= this.inCount - this.dropped) done();
      };
      this.onResults();
    });
  }

  report(): DriverReport {
    return {
      loopDelayMs: [],
      tallies: this.tallies,
      connected: this.inCount,
      connectFailures: this.connectFailures,
      dropped: this.dropped,
      httpFailures: this.reads.failures,
      outcomes: this.outcomes,
    };
  }

  close(): void {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.terminate();
    this.reads.close();
  }

  private connect(index: number): Promise<void> {
    const seat = this.seats[index]!;
    return new Promise((resolve, reject) => {
      seat.settle = (error) => {
        seat.settle = undefined;
        if (error) reject(error);
        else resolve();
      };
      this.attempt(seat);
    });
  }

  /** One socket for the player, on its current gateway. */
  private attempt(seat: Seat): void {
    if (this.closing) return;
    if ((this.options.protocol ?? 'graphql-ws') === 'ws') openWsSocket(this.host, seat);
    else openAppSocket(this.host, seat);
  }

  /** Tries again after `delayMs` (± `jitter` of it) on the next gateway of the list. */
  private retry(seat: Seat, delayMs: number, jitter: number): void {
    seat.gateway = (seat.gateway + 1) % this.options.gatewayUrls.length;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const outcome = this.outcomes[seat.index]!;
        if (outcome.droppedAt !== undefined && outcome.backAt === undefined) {
          outcome.reconnectAttempts = (outcome.reconnectAttempts ?? 0) + 1;
        }
        this.attempt(seat);
      },
      jittered(delayMs, jitter),
    );
    this.timers.add(timer);
  }

  /**
   * Wires the socket's end (its error or close, whichever comes first) to `ended`, and keeps
   * it in the set `close()` terminates while it is open. `refused` names why the driver ended
   * it itself (the subscription was refused).
   */
  private track(
    socket: WebSocket,
    seat: Seat,
    live: () => boolean,
    refused: () => string | undefined,
  ): void {
    this.sockets.add(socket);
    let ended = false;
    const end = (how: Omit<SocketEnd, 'wasLive'>) => {
      if (ended) return;
      ended = true;
      this.sockets.delete(socket);
      const refusal = refused();
      this.ended(seat, {
        ...how,
        ...(refusal ? { error: new Error(refusal) } : {}),
        wasLive: live(),
      });
    };
    socket.on('error', (error) => end({ error }));
    socket.on('close', (code: number, reason: Buffer) => end({ code, reason: reason.toString() }));
  }

  /** The socket's snapshot came: the player is in (again). */
  private snapshot(seat: Seat, text: string, openedAt: number): void {
    const outcome = this.outcomes[seat.index]!;
    seat.live = true;
    if (outcome.inAt === undefined) {
      outcome.inAt = Date.now();
      this.inCount += 1;
      this.snapshotMs.push(performance.now() - openedAt);
    } else if (outcome.droppedAt !== undefined && outcome.backAt === undefined) {
      outcome.backAt = Date.now();
      outcome.backOn = seat.gateway;
      outcome.snapshotVote = ownVoteOf(text);
    }
    seat.settle?.();
    // A vote whose moment came while the player was away, or that had no answer when its socket
    // closed, goes out now, as the app's graphql-ws client sends an operation once connected.
    // After the snapshot, so that the snapshot tells the vote's state of the moment of the drop.
    if (seat.vote && !seat.vote.sent && outcome.answer === undefined) {
      seat.vote.sent = true;
      seat.cast?.(seat.vote.imageId);
    }
  }

  /** A socket ended: a wait (full), a drop (after its snapshot), or a failure (before it). */
  private ended(seat: Seat, end: SocketEnd): void {
    seat.live = false;
    seat.cast = undefined;
    if (this.closing) return;
    const outcome = this.outcomes[seat.index]!;
    if (end.code === FULL_CLOSE_CODE) {
      outcome.turnedAway = (outcome.turnedAway ?? 0) + 1;
      seat.settle?.();
      this.retry(seat, fullRetryMs(end.reason ?? ''), FULL_RETRY_JITTER);
      return;
    }
    if (end.wasLive) {
      // Its round is over for the bench once it has the results.
      if (outcome.resultsMs !== undefined) return;
      if (!this.options.reconnect) {
        this.dropped += 1;
        this.onResults?.();
        return;
      }
      if (outcome.droppedAt === undefined) {
        outcome.droppedAt = Date.now();
        outcome.voteAtDrop = voteAtDrop(seat, outcome);
      }
      if (seat.vote && outcome.answer === undefined) seat.vote.sent = false;
      this.retry(seat, this.options.reconnect.delayMs, RECONNECT_JITTER);
      return;
    }
    // Before its snapshot: the first connection fails the player; a later one (coming back
    // after a drop, or after a full gateway's wait) tries the next gateway.
    if (seat.settle && !outcome.turnedAway) {
      seat.settle(end.error ?? new Error(`closed before its snapshot (${end.code ?? '?'})`));
      return;
    }
    this.retry(seat, this.options.reconnect?.delayMs ?? RECONNECT_DELAY_MS, RECONNECT_JITTER);
  }

  /** A vote at a moment of the window's first `voteSpread` (by `arrival`), for a random image. */
  private scheduleVote(seat: Seat, images: Array<{ id: string }>, phaseEndsAt: string): void {
    const outcome = this.outcomes[seat.index]!;
    const imageId = images[Math.floor(Math.random() * images.length)]!.id;
    const windowMs = Math.max(0, Date.parse(phaseEndsAt) - Date.now());
    const delay = voteDelayMs(windowMs, this.options.voteSpread, this.options.arrival ?? 'uniform');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      outcome.votedImageId = imageId;
      outcome.votedAt = Date.now();
      seat.vote = { imageId, sent: false };
      if (seat.live && seat.cast) {
        seat.vote.sent = true;
        seat.cast(imageId);
      }
    }, delay);
    this.timers.add(timer);
  }

  /** The answer to the player's vote on its current socket. */
  private answered(seat: Seat, answer: string): void {
    const outcome = this.outcomes[seat.index]!;
    outcome.ackMs = performance.now() - seat.voteSentAt;
    outcome.answer = answer;
  }

  /** Round 1's results reached the player. */
  private results(seat: Seat, text: string, tally: (raw: string, deadline: number) => Tally) {
    const outcome = this.outcomes[seat.index]!;
    const tournament = this.options.players[seat.index]!.tournament;
    const voting = this.voting.get(tournament);
    if (outcome.resultsMs !== undefined || !voting || voting.roundNumber !== 1) return;
    outcome.resultsMs = Date.now() - Date.parse(voting.phaseEndsAt);
    this.resultsSeen += 1;
    this.tallies[tournament] ??= tally(text, Date.parse(voting.phaseEndsAt));
    this.onResults?.();
  }
}

/** A vote's state when the player's socket was closed under it. */
function voteAtDrop(seat: Seat, outcome: PlayerOutcome): VoteAtDrop {
  if (outcome.answer === 'vote_processed') return 'acked';
  if (outcome.answer !== undefined) return 'refused';
  return seat.vote?.sent ? 'in-flight' : 'none';
}
