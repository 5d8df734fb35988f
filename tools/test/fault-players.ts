// The fault suite's players: lean clients of the spec's `/ws` socket that vote at seeded random
// moments, record every answer (Jepsen's history), and retry as the web app does (@underdog/rules'
// vote retry policy): a retryable refusal is sent again after the policy's delays while the round
// is current and the socket up; a vote whose answer died with its gateway is sent again once the
// player is connected to the next gateway (as graphql-ws sends an operation in flight again on
// its new socket), and that resend's answer goes through the policy like any other.
import WebSocket from 'ws';
import { reconnectDelayMs, voteRetryDelayMs, voteRetryJitter } from '@underdog/rules';

/** A seeded generator (mulberry32): the same seed replays the same moments and choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Why an attempt was sent: the player's vote, the policy's retry of a retryable refusal, or the
 * transport's resend of a vote whose answer died with its socket.
 */
export type AttemptCause = 'vote' | 'retry' | 'resend';

/** One attempt to vote and what came of it. */
export interface Attempt {
  cause: AttemptCause;
  sentAt: number;
  /** `ack`, a refusal's code, or `unknown` (the socket died before an answer). */
  answer?: string;
  answeredAt?: number;
}

/** One player's vote in one round: the image, and every attempt in order. */
export interface RoundVote {
  imageId: string;
  attempts: Attempt[];
}

export interface SeededPlayer {
  username: string;
  sessionId: string;
  deviceId: string;
}

export interface PlayersOptions {
  gatewayUrls: string[];
  cookieName: string;
  tournamentId: string;
  players: SeededPlayer[];
  /** Each player draws its moments and images from its own generator, seeded from this. */
  seed: number;
  /** Players vote in these rounds (the others they sit out, which ends the game). */
  votingRounds: number;
  /** The share of the voting window votes are spread over (0–1). */
  voteSpread: number;
  /** After the deadline plus this, a vote is not sent (the grace); a resend goes on (`send`). */
  graceMs: number;
}

/** What a round's events said, as the first player to see each one saw it. */
export interface RoundSeen {
  /** Epoch ms of `phaseEndsAt` of the round's voting. */
  deadline: number;
  /** Epoch ms when a player first saw `round_voting_started` (late if the events path stalled). */
  openedSeenAt: number;
  /** Epoch ms when a player first saw `results_started`. */
  resultsAt?: number;
  totalVotes?: number;
  votes?: Record<string, number>;
  /** The images whose voters go on to the next round. */
  winningImageIds?: string[];
}

class Player {
  socket: WebSocket | undefined;
  gateway: number;
  readonly votes = new Map<number, RoundVote>();
  reconnects = 0;
  private pending: { round: number; attempt: Attempt } | undefined;
  /** The round of a vote whose answer died with its socket: sent again on the next one. */
  private unanswered: number | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private subscribed = false;
  private readonly random: () => number;
  /** The retries' jitter, apart from `random` so that it never changes the seeded choices. */
  private readonly jitterRandom: () => number;

  constructor(
    readonly seeded: SeededPlayer,
    index: number,
    private readonly crowd: Players,
  ) {
    this.gateway = index % crowd.options.gatewayUrls.length;
    this.random = seededRandom(crowd.options.seed * 1000 + index);
    this.jitterRandom = seededRandom(crowd.options.seed * 1000 + index + 0x5bd1e995);
  }

  /** Connects and subscribes; resolves with the first snapshot. */
  connect(): Promise<void> {
    const { gatewayUrls, cookieName, tournamentId } = this.crowd.options;
    const base = gatewayUrls[this.gateway]!.replace(/^http/, 'ws');
    const url = `${base}/ws?deviceId=${encodeURIComponent(this.seeded.deviceId)}`;
    this.subscribed = false;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        headers: { cookie: `${cookieName}=${this.seeded.sessionId}` },
        perMessageDeflate: false,
      });
      this.socket = socket;
      socket.on('open', () =>
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
      );
      socket.on('error', (error) => {
        if (!this.subscribed) reject(error);
      });
      socket.on('close', () => {
        if (!this.subscribed) reject(new Error('closed before its snapshot'));
        else this.lost(socket);
      });
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString()) as { type: string } & Record<string, unknown>;
        if (message.type === 'game_state_update' && !this.subscribed) {
          this.subscribed = true;
          resolve();
          this.resendUnanswered();
        }
        this.onMessage(message);
      });
    });
  }

  private onMessage(message: { type: string } & Record<string, unknown>): void {
    const crowd = this.crowd;
    switch (message.type) {
      case 'round_voting_started': {
        const round = message.roundNumber as number;
        const deadline = Date.parse(message.phaseEndsAt as string);
        crowd.sawVoting(round, deadline);
        const images = (message.round as { images: Array<{ id: string }> }).images;
        this.schedule(round, deadline, images);
        return;
      }
      case 'results_started':
        crowd.sawResults(
          message.roundNumber as number,
          message.totalVotes as number,
          message.results as Array<{ imageId: string; votes: number }>,
          message.winningImageIds as string[],
        );
        return;
      case 'game_ended':
        crowd.sawGameEnded(message.gameId as string);
        return;
      case 'game_started':
        crowd.sawGameStarted(message.gameId as string);
        return;
      case 'vote_processed':
        this.answer('ack');
        return;
      case 'error':
        if (this.pending) this.answer(message.code as string);
        return;
      default:
        return;
    }
  }

  /** Picks the moment and the image now, so the seed alone decides them. */
  private schedule(round: number, deadline: number, images: Array<{ id: string }>): void {
    const { votingRounds, voteSpread } = this.crowd.options;
    if (round > votingRounds || this.votes.has(round)) return;
    const imageId = images[Math.floor(this.random() * images.length)]!.id;
    const delay = this.random() * Math.max(0, deadline - Date.now()) * voteSpread;
    this.votes.set(round, { imageId, attempts: [] });
    this.later(() => this.send(round, deadline), delay);
  }

  private later(action: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  /**
   * Sends the round's vote the first time, while the window and grace are open (waiting for the
   * socket if it is down, as a player waits to see the round before voting).
   */
  private send(round: number, deadline: number): void {
    if (this.closed) return;
    if (Date.now() > deadline + this.crowd.options.graceMs) return;
    if (!this.connected() || this.pending) {
      this.later(() => this.send(round, deadline), 100);
      return;
    }
    this.transmit(round, 'vote');
  }

  /** The web app's `stillCurrent`: the vote's round is the one shown and the socket is up. */
  private stillCurrent(round: number): boolean {
    return (
      !this.closed &&
      this.connected() &&
      !this.crowd.rounds.has(round + 1) &&
      this.crowd.endedGameIds.size === 0
    );
  }

  private connected(): boolean {
    return this.subscribed && this.socket?.readyState === WebSocket.OPEN;
  }

  private transmit(round: number, cause: AttemptCause): void {
    const vote = this.votes.get(round)!;
    const attempt: Attempt = { cause, sentAt: Date.now() };
    vote.attempts.push(attempt);
    this.pending = { round, attempt };
    this.socket!.send(
      JSON.stringify({
        type: 'game_action',
        tournamentId: this.crowd.options.tournamentId,
        action: 'image_select',
        playerId: this.seeded.username,
        imageId: vote.imageId,
        round,
        timestamp: new Date().toISOString(),
      }),
    );
  }

  private answer(answer: string): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    pending.attempt.answer = answer;
    pending.attempt.answeredAt = Date.now();
    if (answer === 'unknown' || answer === 'ack') return;
    // The policy counts the answers the client saw: a resend after a dead socket is the same
    // operation as the send it replaces (graphql-ws), not a new try.
    const failed = this.votes
      .get(pending.round)!
      .attempts.filter((a) => a.answer !== undefined && a.answer !== 'unknown').length;
    const delay = voteRetryDelayMs(answer, failed, voteRetryJitter(this.jitterRandom));
    if (delay === undefined || !this.stillCurrent(pending.round)) return;
    this.later(() => {
      if (this.stillCurrent(pending.round) && !this.pending) this.transmit(pending.round, 'retry');
    }, delay);
  }

  /** graphql-ws sends the operation in flight when its socket closed again on the next socket. */
  private resendUnanswered(): void {
    const round = this.unanswered;
    this.unanswered = undefined;
    if (round === undefined || this.closed || this.pending) return;
    this.transmit(round, 'resend');
  }

  /**
   * The gateway went away: the vote in flight is indeterminate; reconnect to the next one after
   * the web app's own wait (3 s ± 1 s, `reconnectDelayMs`), as a player's browser does.
   */
  private lost(socket: WebSocket): void {
    if (this.closed || socket !== this.socket) return;
    this.subscribed = false;
    if (this.pending) this.unanswered = this.pending.round;
    this.answer('unknown');
    this.reconnects += 1;
    const retry = () => {
      if (this.closed) return;
      this.gateway = (this.gateway + 1) % this.crowd.options.gatewayUrls.length;
      this.connect().catch(() => this.later(retry, reconnectDelayMs()));
    };
    this.later(retry, reconnectDelayMs());
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.socket?.terminate();
  }
}

/** Every player of one scenario, and what they saw together. */
export class Players {
  readonly rounds = new Map<number, RoundSeen>();
  readonly gameIds = new Set<string>();
  readonly endedGameIds = new Set<string>();
  /** Epoch ms when a player first saw `game_ended`. */
  gameEndedAt: number | undefined;
  readonly players: Player[];
  private gameEndWaiters: Array<() => void> = [];

  constructor(readonly options: PlayersOptions) {
    this.players = options.players.map((seeded, index) => new Player(seeded, index, this));
  }

  async connect(concurrency = 50): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < this.players.length) {
        const player = this.players[next]!;
        next += 1;
        await player.connect();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** The players connected to gateway `index` now. */
  on(gateway: number): number {
    return this.players.filter((player) => player.gateway === gateway).length;
  }

  /** How many attempts of every player were sent for `cause`. */
  attempts(cause: AttemptCause): number {
    return this.players.reduce(
      (sum, player) =>
        sum +
        [...player.votes.values()].flatMap((vote) => vote.attempts).filter((a) => a.cause === cause)
          .length,
      0,
    );
  }

  get reconnects(): number {
    return this.players.reduce((sum, player) => sum + player.reconnects, 0);
  }

  sawVoting(round: number, deadline: number): void {
    if (!this.rounds.has(round)) this.rounds.set(round, { deadline, openedSeenAt: Date.now() });
  }

  sawResults(
    round: number,
    totalVotes: number,
    results: Array<{ imageId: string; votes: number }>,
    winningImageIds: string[],
  ) {
    const seen = this.rounds.get(round);
    if (!seen || seen.resultsAt !== undefined) return;
    seen.resultsAt = Date.now();
    seen.totalVotes = totalVotes;
    seen.votes = Object.fromEntries(results.map((r) => [r.imageId, r.votes]));
    seen.winningImageIds = winningImageIds;
  }

  sawGameStarted(gameId: string): void {
    this.gameIds.add(gameId);
  }

  sawGameEnded(gameId: string): void {
    this.gameEndedAt ??= Date.now();
    this.endedGameIds.add(gameId);
    for (const wake of this.gameEndWaiters) wake();
    this.gameEndWaiters = [];
  }

  /** Resolves when a player saw `game_ended`, or rejects after `timeoutMs`. */
  gameEnded(timeoutMs: number): Promise<void> {
    if (this.endedGameIds.size > 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no game_ended within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.gameEndWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Every player's vote of `round`, by username. */
  votesOf(round: number): Map<string, RoundVote> {
    const votes = new Map<string, RoundVote>();
    for (const player of this.players) {
      const vote = player.votes.get(round);
      if (vote) votes.set(player.seeded.username, vote);
    }
    return votes;
  }

  close(): void {
    for (const player of this.players) player.close();
  }
}
