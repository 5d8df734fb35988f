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
import { VOTING_GRACE_MS } from './stats';

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
  /** Which gateway replica it connects to (its index in `gatewayUrls`). */
  gateway: number;
}

export interface DriverOptions {
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
}

/** What one player saw of its round. */
export interface PlayerOutcome {
  username: string;
  tournament: number;
  /** The image it voted for, when it sent a vote. */
  votedImageId?: string;
  /** ms from sending the vote to its answer. */
  ackMs?: number;
  /** When the vote was sent (epoch ms): lines slow answers up with what happened then. */
  votedAt?: number;
  /** `vote_processed`, or the refusal's code. */
  answer?: string;
  /** ms from the round's deadline (`phaseEndsAt` of its voting) to its `results_started`. */
  resultsMs?: number;
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
  connected: number;
  connectFailures: number;
  /** Sockets closed by the server or the network before the round's results. */
  dropped: number;
  /** HTTP reads that failed (the graphql-ws players' `liveGame`): must be 0. */
  httpFailures: number;
  outcomes: PlayerOutcome[];
}

interface VotingStarted {
  tournamentId: string;
  roundNumber: number;
  phaseEndsAt: string;
  timeRemaining: number;
  round: { images: Array<{ id: string }> };
}

const prefix = (type: string) => `{"type":"${type}"`;
const VOTING_STARTED = prefix('round_voting_started');
const VOTE_PROCESSED = prefix('vote_processed');
const RESULTS = prefix('results_started');
const STATE = prefix('game_state_update');
const ERROR = prefix('error');

/**
 * Drives `players` through one round: connect and subscribe (`start`), vote once when round 1's
 * voting opens, and record the acknowledgement and the results' arrival (`finished`).
 */
export class PlayerDriver {
  private readonly sockets: WebSocket[] = [];
  private readonly outcomes: PlayerOutcome[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private connectFailures = 0;
  /** Per connected player: ms to the upgrade's answer, and from there to the snapshot. */
  readonly openMs: number[] = [];
  readonly snapshotMs: number[] = [];
  private dropped = 0;
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
    }));
  }

  /** Connects every player and subscribes it; resolves once each has its snapshot (or failed). */
  async start(): Promise<{
    connected: number;
    failed: number;
    openMs: number[];
    snapshotMs: number[];
  }> {
    const { players, connectConcurrency } = this.options;
    let next = 0;
    const worker = async () => {
      while (next < players.length) {
        const index = next;
        next += 1;
        await this.connect(index).catch(() => {
          this.connectFailures += 1;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, connectConcurrency) }, worker));
    return {
      connected: players.length - this.connectFailures,
      failed: this.connectFailures,
      openMs: this.openMs,
      snapshotMs: this.snapshotMs,
    };
  }

  /** Resolves when every connected player got round 1's results, or after `timeoutMs`. */
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
        if (this.resultsSeen >= this.options.players.length - this.connectFailures - this.dropped) {
          done();
        }
      };
      this.onResults();
    });
  }

  report(): DriverReport {
    return {
      loopDelayMs: [],
      tallies: this.tallies,
      connected: this.options.players.length - this.connectFailures,
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
    return (this.options.protocol ?? 'graphql-ws') === 'ws'
      ? this.connectWs(index)
      : this.connectApp(index);
  }

  /** A vote at a random moment of the window's first `voteSpread`, for a random image. */
  private scheduleVote(
    outcome: PlayerOutcome,
    images: Array<{ id: string }>,
    phaseEndsAt: string,
    cast: (imageId: string) => void,
  ): void {
    const imageId = images[Math.floor(Math.random() * images.length)]!.id;
    const windowMs = Math.max(0, Date.parse(phaseEndsAt) - Date.now());
    const delay = Math.random() * windowMs * this.options.voteSpread;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      outcome.votedImageId = imageId;
      outcome.votedAt = Date.now();
      cast(imageId);
    }, delay);
    this.timers.add(timer);
  }

  /**
   * One player as the web app plays (web/src/app/apollo.ts, useLiveGame, GamePage): a
   * graphql-ws socket on `/graphql` with the app's connection_init params, the `liveGame` read
   * over HTTP, the GameEvents and TournamentsChanged subscriptions, a join on arrival, and
   * castVote over the socket, every operation as Apollo prints it and with a fresh UUID id.
   */
  private connectApp(index: number): Promise<void> {
    const { gatewayUrls, cookieName, tournamentIds, sourceAddresses, operations } = this.options;
    if (!operations) throw new Error('the graphql-ws driver needs the app operations');
    const player = this.options.players[index]!;
    const outcome = this.outcomes[index]!;
    const tournamentId = tournamentIds[player.tournament]!;
    const httpBase = gatewayUrls[player.gateway]!;
    const url = `${httpBase.replace(/^http/, 'ws')}/graphql?deviceId=${encodeURIComponent(player.deviceId)}`;
    const localAddress = sourceAddresses[index % sourceAddresses.length];
    const cookie = `${cookieName}=${player.sessionId}`;
    const ids = {
      events: randomUUID(),
      list: randomUUID(),
      join: randomUUID(),
      vote: randomUUID(),
    };
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, 'graphql-transport-ws', {
        headers: { cookie },
        perMessageDeflate: false,
        ...(localAddress ? { localAddress } : {}),
      });
      const send = (message: unknown) => socket.send(JSON.stringify(message));
      const subscribe = (id: string, operation: AppOperation, variables: object) =>
        send({ id, type: 'subscribe', payload: { ...operation, variables } });
      let subscribed = false;
      let voteSentAt = 0;
      const connectStarted = performance.now();
      let openedAt = 0;
      let scheduled = false;
      socket.on('open', () => {
        openedAt = performance.now();
        this.openMs.push(openedAt - connectStarted);
        this.sockets.push(socket);
        send({
          type: 'connection_init',
          payload: { 'X-Device-ID': player.deviceId, deviceId: player.deviceId },
        });
      });
      this.failOrCountDrop(socket, outcome, () => subscribed, reject);
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const text = data.toString();
        if (text.startsWith('{"type":"connection_ack"')) {
          // The page's first moves, together: the snapshot read, its two subscriptions, the join.
          this.postGraphQL(httpBase, cookie, player.deviceId, operations.liveGame, {
            tournamentId,
          });
          subscribe(ids.events, operations.gameEvents, { tournamentId });
          subscribe(ids.list, operations.tournamentsChanged, {});
          subscribe(ids.join, operations.joinTournament, { tournamentId });
          return;
        }
        if (text.startsWith('{"type":"ping"')) {
          send({ type: 'pong' });
          return;
        }
        const id = text.startsWith('{"id":"') ? text.slice(7, text.indexOf('"', 7)) : '';
        const isNext = text.startsWith('","type":"next"', 7 + id.length);
        if (id === ids.vote) {
          if (!voteSentAt || outcome.answer !== undefined) return;
          if (isNext && text.includes('"castVote":{')) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = 'vote_processed';
          } else if (isNext || text.startsWith('","type":"error"', 7 + id.length)) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = graphqlErrorCode(text);
          }
          return;
        }
        if (id !== ids.events) return;
        if (!isNext) {
          if (!subscribed) reject(new Error(`subscribe refused: ${text.slice(0, 200)}`));
          return;
        }
        const type = eventTypeOf(text);
        if (!subscribed) {
          if (type === 'GameSnapshot') {
            subscribed = true;
            this.snapshotMs.push(performance.now() - openedAt);
            resolve();
          } else {
            reject(new Error(`subscribe refused: ${text.slice(0, 200)}`));
          }
          return;
        }
        if (type === 'RoundVotingStarted') {
          const voting = this.appVotingStarted(player.tournament, text);
          if (voting.roundNumber !== 1 || scheduled) return;
          scheduled = true;
          this.scheduleVote(outcome, voting.round.images, voting.phaseEndsAt, (imageId) => {
            voteSentAt = performance.now();
            subscribe(ids.vote, operations.castVote, { tournamentId, roundNumber: 1, imageId });
          });
        } else if (type === 'RoundResults') {
          const voting = this.votingCache.get(player.tournament)?.parsed;
          if (outcome.resultsMs !== undefined || !voting || voting.roundNumber !== 1) return;
          outcome.resultsMs = Date.now() - Date.parse(voting.phaseEndsAt);
          this.resultsSeen += 1;
          if (!this.tallies[player.tournament]) {
            this.tallies[player.tournament] = appTallyOf(text, Date.parse(voting.phaseEndsAt));
          }
          this.onResults?.();
        }
      });
    });
  }

  /**
   * A query over HTTP as Apollo's HttpLink sends it (cookie, X-Device-ID, JSON), through a
   * keep-alive agent. Its answer is not used: the read's cost to the gateway is the point.
   */
  /**
   * Before its snapshot, a socket's error or close fails its connection; after it, a close the
   * driver did not ask for, before the game's results, counts as a dropped player.
   */
  private failOrCountDrop(
    socket: WebSocket,
    outcome: PlayerOutcome,
    subscribed: () => boolean,
    reject: (error: Error) => void,
  ): void {
    socket.on('error', (error) => {
      if (!subscribed()) reject(error);
    });
    socket.on('close', () => {
      if (!subscribed()) reject(new Error('closed before its snapshot'));
      else if (!this.closing && outcome.resultsMs === undefined) this.dropped += 1;
    });
  }

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

  private connectWs(index: number): Promise<void> {
    const { gatewayUrls, cookieName, tournamentIds, sourceAddresses } = this.options;
    const player = this.options.players[index]!;
    const outcome = this.outcomes[index]!;
    const tournamentId = tournamentIds[player.tournament]!;
    const base = gatewayUrls[player.gateway]!.replace(/^http/, 'ws');
    const url = `${base}/ws?deviceId=${encodeURIComponent(player.deviceId)}`;
    const localAddress = sourceAddresses[index % sourceAddresses.length];
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        headers: { cookie: `${cookieName}=${player.sessionId}` },
        perMessageDeflate: false,
        ...(localAddress ? { localAddress } : {}),
      });
      let subscribed = false;
      let voteSentAt = 0;
      const connectStarted = performance.now();
      let openedAt = 0;
      let scheduled = false;
      socket.on('open', () => {
        openedAt = performance.now();
        this.openMs.push(openedAt - connectStarted);
        this.sockets.push(socket);
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId }));
      });
      this.failOrCountDrop(socket, outcome, () => subscribed, reject);
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const text = data.toString();
        if (text.startsWith(VOTE_PROCESSED)) {
          if (voteSentAt && outcome.answer === undefined) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = 'vote_processed';
          }
        } else if (text.startsWith(VOTING_STARTED)) {
          const voting = this.votingStarted(player.tournament, text);
          if (voting.roundNumber !== 1 || scheduled) return;
          scheduled = true;
          this.scheduleVote(outcome, voting.round.images, voting.phaseEndsAt, (imageId) => {
            voteSentAt = performance.now();
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
          });
        } else if (text.startsWith(RESULTS)) {
          const voting = this.votingCache.get(player.tournament)?.parsed;
          if (outcome.resultsMs !== undefined || !voting || voting.roundNumber !== 1) return;
          outcome.resultsMs = Date.now() - Date.parse(voting.phaseEndsAt);
          this.resultsSeen += 1;
          if (!this.tallies[player.tournament]) {
            this.tallies[player.tournament] = tallyOf(text, Date.parse(voting.phaseEndsAt));
          }
          this.onResults?.();
        } else if (text.startsWith(STATE)) {
          if (!subscribed) {
            subscribed = true;
            this.snapshotMs.push(performance.now() - openedAt);
            resolve();
          }
        } else if (text.startsWith(ERROR)) {
          const { code } = JSON.parse(text) as { code: string };
          if (voteSentAt && outcome.answer === undefined) {
            outcome.ackMs = performance.now() - voteSentAt;
            outcome.answer = code;
          } else if (!subscribed) {
            reject(new Error(`subscribe refused: ${code}`));
          }
        }
      });
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
