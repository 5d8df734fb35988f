// The lean load driver: many players, each one socket with its session cookie, spread over
// several loopback source addresses. By default each player does what the web app does
// (`graphql-ws`: the app's transport); `ws` plays the spec's legacy `/ws` socket. It parses as
// little as it can: the gateway writes the same serialised event to every subscriber, so a
// message is recognised by its `"type"` (or `__typename`) and the few that carry data the
// driver needs are parsed once per distinct text.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { AppOperation, AppOperations } from './app-operations';
import {
  FULL_RETRY_JITTER,
  RECONNECT_JITTER_MS,
  SERVER_FULL_CLOSE_CODE,
  SOCKET_RECONNECT_MS,
  VOTING_GRACE_MS,
  fullRetrySeconds,
} from '@underdog/rules';

/**
 * How the players talk to the gateway: `graphql-ws`, the web app's own transport (the
 * `graphql-transport-ws` subprotocol on `/graphql`, castVote over the socket), or `ws`, the
 * spec's legacy `/ws` socket.
 */
export type DriverProtocol = 'graphql-ws' | 'ws';

export const driverProtocols: readonly DriverProtocol[] = ['graphql-ws', 'ws'];

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

/** The caller's own vote in a snapshot (`player.voteImageId`, both protocols), or null. */
export function ownVoteOf(snapshot: string): string | null {
  return /"voteImageId":(?:"([^"]*)"|null)/.exec(snapshot)?.[1] ?? null;
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

interface VotingStarted {
  tournamentId: string;
  roundNumber: number;
  phaseEndsAt: string;
  timeRemaining: number;
  round: { images: Array<{ id: string }> };
}

/** One player across its sockets: where it connects, and its vote. */
interface Seat {
  index: number;
  /** The gateway of its current (or next) attempt. */
  gateway: number;
  /** Its socket now has its snapshot. */
  live: boolean;
  /** Sends a vote on the live socket; undefined while it has none. */
  cast?: (imageId: string) => void;
  /** When the vote on the current socket left (performance.now()), for its ack latency. */
  voteSentAt: number;
  /** The vote chosen when its moment came; `sent` once on a socket (again after a drop). */
  vote?: { imageId: string; sent: boolean };
  /** Round 1's vote is scheduled. */
  scheduled: boolean;
  /** The page's first moves (liveGame read, join) were made. */
  arrived: boolean;
  /** Resolves or fails `start()` for this player (once). */
  settle?: (error?: Error) => void;
}

/** How a socket ended: refused or failed before its snapshot, or closed after it. */
interface SocketEnd {
  code?: number;
  reason?: string;
  error?: Error;
  wasLive: boolean;
}

const prefix = (type: string) => `{"type":"${type}"`;
const VOTING_STARTED = prefix('round_voting_started');
const VOTE_PROCESSED = prefix('vote_processed');
const RESULTS = prefix('results_started');
const STATE = prefix('game_state_update');
const ERROR = prefix('error');

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
  private readonly votingCache = new Map<number, { raw: string; parsed: VotingStarted }>();
  private closing = false;
  private readonly tallies: Record<number, Tally> = {};
  /**
   * The HTTP reads (graphql-ws players' `liveGame`). Node 20's keep-alive agent ignores the
   * server's `Keep-Alive: timeout=5` unless it has a timeout of its own: a reused socket the
   * server had closed then failed with ECONNRESET.
   */
  private readonly agent = new Agent({ keepAlive: true, timeout: 4_000, maxSockets: 64 });
  /** HTTP reads that failed or were refused (graphql-ws players). */
  private httpFailures = 0;

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
      httpFailures: this.httpFailures,
      outcomes: this.outcomes,
    };
  }

  close(): void {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.terminate();
    this.agent.destroy();
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
    if ((this.options.protocol ?? 'graphql-ws') === 'ws') this.openWs(seat);
    else this.openApp(seat);
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

  /** A vote at a random moment of the window's first `voteSpread`, for a random image. */
  private scheduleVote(seat: Seat, images: Array<{ id: string }>, phaseEndsAt: string): void {
    const outcome = this.outcomes[seat.index]!;
    const imageId = images[Math.floor(Math.random() * images.length)]!.id;
    const windowMs = Math.max(0, Date.parse(phaseEndsAt) - Date.now());
    const delay = Math.random() * windowMs * this.options.voteSpread;
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
    const voting = this.votingCache.get(tournament)?.parsed;
    if (outcome.resultsMs !== undefined || !voting || voting.roundNumber !== 1) return;
    outcome.resultsMs = Date.now() - Date.parse(voting.phaseEndsAt);
    this.resultsSeen += 1;
    this.tallies[tournament] ??= tally(text, Date.parse(voting.phaseEndsAt));
    this.onResults?.();
  }

  /**
   * One player as the web app plays (web/src/app/apollo.ts, useLiveGame, GamePage): a
   * graphql-ws socket on `/graphql` with the app's connection_init params, the `liveGame` read
   * over HTTP, the GameEvents and TournamentsChanged subscriptions, a join on arrival, and
   * castVote over the socket, every operation as Apollo prints it and with a fresh UUID id.
   * Coming back after a drop it subscribes again (graphql-ws resubscribes what was active).
   */
  private openApp(seat: Seat): void {
    const { gatewayUrls, cookieName, tournamentIds, sourceAddresses, operations } = this.options;
    if (!operations) throw new Error('the graphql-ws driver needs the app operations');
    const player = this.options.players[seat.index]!;
    const tournamentId = tournamentIds[player.tournament]!;
    const httpBase = gatewayUrls[seat.gateway]!;
    const url = `${httpBase.replace(/^http/, 'ws')}/graphql?deviceId=${encodeURIComponent(player.deviceId)}`;
    const localAddress = sourceAddresses[seat.index % sourceAddresses.length];
    const cookie = `${cookieName}=${player.sessionId}`;
    const ids = {
      events: randomUUID(),
      list: randomUUID(),
      join: randomUUID(),
      vote: randomUUID(),
    };
    const socket = new WebSocket(url, 'graphql-transport-ws', {
      headers: { cookie },
      perMessageDeflate: false,
      ...(localAddress ? { localAddress } : {}),
    });
    const send = (message: unknown) => socket.send(JSON.stringify(message));
    const subscribe = (id: string, operation: AppOperation, variables: object) =>
      send({ id, type: 'subscribe', payload: { ...operation, variables } });
    let live = false;
    let voteAsked = false;
    let refused: string | undefined;
    const refuse = (why: string) => {
      refused = `subscribe refused: ${why.slice(0, 200)}`;
      socket.terminate();
    };
    const connectStarted = performance.now();
    let openedAt = 0;
    socket.on('open', () => {
      openedAt = performance.now();
      if (this.outcomes[seat.index]!.inAt === undefined)
        this.openMs.push(openedAt - connectStarted);
      send({
        type: 'connection_init',
        payload: { 'X-Device-ID': player.deviceId, deviceId: player.deviceId },
      });
    });
    this.track(
      socket,
      seat,
      () => live,
      () => refused,
    );
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const text = data.toString();
      if (text.startsWith('{"type":"connection_ack"')) {
        // The page's first moves, together: the snapshot read, its two subscriptions, the join.
        if (!seat.arrived) {
          this.postGraphQL(httpBase, cookie, player.deviceId, operations.liveGame, {
            tournamentId,
          });
        }
        subscribe(ids.events, operations.gameEvents, { tournamentId });
        subscribe(ids.list, operations.tournamentsChanged, {});
        if (!seat.arrived) subscribe(ids.join, operations.joinTournament, { tournamentId });
        seat.arrived = true;
        return;
      }
      if (text.startsWith('{"type":"ping"')) {
        send({ type: 'pong' });
        return;
      }
      const id = text.startsWith('{"id":"') ? text.slice(7, text.indexOf('"', 7)) : '';
      const isNext = text.startsWith('","type":"next"', 7 + id.length);
      if (id === ids.vote) {
        if (!voteAsked || this.outcomes[seat.index]!.answer !== undefined) return;
        if (isNext && text.includes('"castVote":{')) this.answered(seat, 'vote_processed');
        else if (isNext || text.startsWith('","type":"error"', 7 + id.length)) {
          this.answered(seat, graphqlErrorCode(text));
        }
        return;
      }
      if (id !== ids.events) return;
      if (!isNext) {
        if (!live) refuse(text);
        return;
      }
      const type = eventTypeOf(text);
      if (!live) {
        if (type !== 'GameSnapshot') {
          refuse(text);
          return;
        }
        live = true;
        seat.cast = (imageId) => {
          voteAsked = true;
          seat.voteSentAt = performance.now();
          subscribe(ids.vote, operations.castVote, { tournamentId, roundNumber: 1, imageId });
        };
        this.snapshot(seat, text, openedAt);
        return;
      }
      if (type === 'RoundVotingStarted') {
        const voting = this.appVotingStarted(player.tournament, text);
        if (voting.roundNumber !== 1 || seat.scheduled) return;
        seat.scheduled = true;
        this.scheduleVote(seat, voting.round.images, voting.phaseEndsAt);
      } else if (type === 'RoundResults') {
        this.results(seat, text, appTallyOf);
      }
    });
  }

  /**
   * A query over HTTP as Apollo's HttpLink sends it (cookie, X-Device-ID, JSON), through a
   * keep-alive agent. Its answer is not used: the read's cost to the gateway is the point.
   */
  private postGraphQL(
    base: string,
    cookie: string,
    deviceId: string,
    operation: AppOperation,
    variables: object,
  ): void {
    const body = JSON.stringify({ ...operation, variables });
    const call = request(
      `${base}/graphql`,
      {
        method: 'POST',
        agent: this.agent,
        headers: {
          accept: 'application/graphql-response+json,application/json;q=0.9',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          cookie,
          'x-device-id': deviceId,
        },
      },
      (response) => {
        if (response.statusCode !== 200) this.httpFailures += 1;
        response.resume();
      },
    );
    call.on('error', () => {
      this.httpFailures += 1;
    });
    call.end(body);
  }

  /** A RoundVotingStarted `next`, parsed once per distinct event (the id prefix differs). */
  private appVotingStarted(tournament: number, raw: string): VotingStarted {
    const body = raw.slice(raw.indexOf('"payload":'));
    const cached = this.votingCache.get(tournament);
    if (cached?.raw === body) return cached.parsed;
    const event = (
      JSON.parse(raw) as {
        payload: { data: { gameEvents: Omit<VotingStarted, 'round'> & VotingStarted['round'] } };
      }
    ).payload.data.gameEvents;
    const parsed: VotingStarted = { ...event, round: { images: event.images } };
    this.votingCache.set(tournament, { raw: body, parsed });
    return parsed;
  }

  /** One player on the spec's legacy `/ws` socket (`subscribe_tournament`, `game_action`). */
  private openWs(seat: Seat): void {
    const { gatewayUrls, cookieName, tournamentIds, sourceAddresses } = this.options;
    const player = this.options.players[seat.index]!;
    const tournamentId = tournamentIds[player.tournament]!;
    const base = gatewayUrls[seat.gateway]!.replace(/^http/, 'ws');
    const url = `${base}/ws?deviceId=${encodeURIComponent(player.deviceId)}`;
    const localAddress = sourceAddresses[seat.index % sourceAddresses.length];
    const socket = new WebSocket(url, {
      headers: { cookie: `${cookieName}=${player.sessionId}` },
      perMessageDeflate: false,
      ...(localAddress ? { localAddress } : {}),
    });
    let live = false;
    let voteAsked = false;
    let refused: string | undefined;
    const refuse = (why: string) => {
      refused = `subscribe refused: ${why.slice(0, 200)}`;
      socket.terminate();
    };
    const connectStarted = performance.now();
    let openedAt = 0;
    socket.on('open', () => {
      openedAt = performance.now();
      if (this.outcomes[seat.index]!.inAt === undefined)
        this.openMs.push(openedAt - connectStarted);
      socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId }));
    });
    this.track(
      socket,
      seat,
      () => live,
      () => refused,
    );
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return;
      const text = data.toString();
      const outcome = this.outcomes[seat.index]!;
      if (text.startsWith(VOTE_PROCESSED)) {
        if (voteAsked && outcome.answer === undefined) this.answered(seat, 'vote_processed');
      } else if (text.startsWith(VOTING_STARTED)) {
        const voting = this.votingStarted(player.tournament, text);
        if (voting.roundNumber !== 1 || seat.scheduled) return;
        seat.scheduled = true;
        this.scheduleVote(seat, voting.round.images, voting.phaseEndsAt);
      } else if (text.startsWith(RESULTS)) {
        this.results(seat, text, tallyOf);
      } else if (text.startsWith(STATE)) {
        if (live) return;
        live = true;
        seat.cast = (imageId) => {
          voteAsked = true;
          seat.voteSentAt = performance.now();
          socket.send(
            JSON.stringify({
              type: 'game_action',
              tournamentId,
              action: 'image_select',
              playerId: player.username,
              imageId,
              round: 1,
              timestamp: new Date().toISOString(),
            }),
          );
        };
        this.snapshot(seat, text, openedAt);
      } else if (text.startsWith(ERROR)) {
        const { code } = JSON.parse(text) as { code: string };
        if (voteAsked && outcome.answer === undefined) this.answered(seat, code);
        else if (!live) refuse(code);
      }
    });
  }

  private votingStarted(tournament: number, raw: string): VotingStarted {
    const cached = this.votingCache.get(tournament);
    if (cached?.raw === raw) return cached.parsed;
    const parsed = JSON.parse(raw) as VotingStarted;
    this.votingCache.set(tournament, { raw, parsed });
    return parsed;
  }
}

/** A vote's state when the player's socket was closed under it. */
function voteAtDrop(seat: Seat, outcome: PlayerOutcome): VoteAtDrop {
  if (outcome.answer === 'vote_processed') return 'acked';
  if (outcome.answer !== undefined) return 'refused';
  return seat.vote?.sent ? 'in-flight' : 'none';
}

/** The `__typename` of a GameEvents `next` (the first field of the app's selection). */
export function eventTypeOf(text: string): string | undefined {
  const marker = '"gameEvents":{"__typename":"';
  const start = text.indexOf(marker);
  if (start < 0) return undefined;
  const from = start + marker.length;
  return text.slice(from, text.indexOf('"', from));
}

/** The refusal code of a graphql-ws answer (`next` with errors, or `error`). */
export function graphqlErrorCode(text: string): string {
  const message = JSON.parse(text) as {
    type: string;
    payload?:
      | { errors?: Array<{ extensions?: { code?: string } }> }
      | Array<{ extensions?: { code?: string } }>;
  };
  const errors = Array.isArray(message.payload) ? message.payload : message.payload?.errors;
  return errors?.[0]?.extensions?.code ?? 'UNKNOWN_ERROR';
}

/** Round 1's tally from a RoundResults `next` of the GameEvents subscription. */
function appTallyOf(raw: string, deadline: number): Tally {
  const { totalVotes, results, durationSeconds, phaseEndsAt } = (
    JSON.parse(raw) as {
      payload: {
        data: {
          gameEvents: {
            totalVotes: number;
            results: Array<{ imageId: string; votes: number }>;
            durationSeconds: number;
            phaseEndsAt: string;
          };
        };
      };
    }
  ).payload.data.gameEvents;
  const closedAt = deadline + VOTING_GRACE_MS;
  return {
    totalVotes,
    votes: Object.fromEntries(results.map((result) => [result.imageId, result.votes])),
    resolvedAfterCloseMs: Date.parse(phaseEndsAt) - durationSeconds * 1000 - closedAt,
    closedAt,
  };
}

function tallyOf(raw: string, deadline: number): Tally {
  const { totalVotes, results, duration, phaseEndsAt } = JSON.parse(raw) as {
    totalVotes: number;
    results: Array<{ imageId: string; votes: number }>;
    duration: number;
    phaseEndsAt: string;
  };
  const closedAt = deadline + VOTING_GRACE_MS;
  return {
    totalVotes,
    votes: Object.fromEntries(results.map((result) => [result.imageId, result.votes])),
    resolvedAfterCloseMs: Date.parse(phaseEndsAt) - duration * 1000 - closedAt,
    closedAt,
  };
}
