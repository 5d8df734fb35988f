// Over 300 lines: the two protocols' sockets side by side, so a difference between them shows.
// A player's socket, in each of the two protocols: what the web app does (`graphql-ws`) or
// the spec's legacy `/ws`. Each reads the server's messages and tells the driver (`SeatHost`)
// what happened; the driver keeps the player's state across its sockets.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { AppOperation } from './app-operations';
import { BROWSER_USER_AGENT, type DriverOptions, type Tally } from './driver-contract';
import {
  ERROR,
  RESULTS,
  STATE,
  VOTE_PROCESSED,
  VOTING_STARTED,
  appTallyOf,
  eventTypeOf,
  graphqlErrorCode,
  tallyOf,
  type VotingStarted,
  type VotingStartedCache,
} from './player-messages';

/** One player across its sockets: where it connects, and its vote. */
export interface Seat {
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
export interface SocketEnd {
  code?: number;
  reason?: string;
  error?: Error;
  wasLive: boolean;
}

/** What a player's socket tells the driver, and what it reads of it. */
export interface SeatHost {
  readonly options: DriverOptions;
  readonly reads: HttpReads;
  readonly voting: VotingStartedCache;
  /** The upgrade of the player's socket was answered after `ms`. */
  upgraded(seat: Seat, ms: number): void;
  /** Wires the socket's end to the driver (see `PlayerDriver.track`). */
  track(
    socket: WebSocket,
    seat: Seat,
    live: () => boolean,
    refused: () => string | undefined,
  ): void;
  /** The socket's snapshot came: the player is in (again). */
  snapshot(seat: Seat, text: string, openedAt: number): void;
  /** The player's vote has its answer. */
  hasAnswer(seat: Seat): boolean;
  answered(seat: Seat, answer: string): void;
  /** A round's voting opened: round 1's vote is scheduled once. */
  votingOpened(seat: Seat, voting: VotingStarted): void;
  results(seat: Seat, text: string, tally: (raw: string, deadline: number) => Tally): void;
}

/**
 * The players' HTTP reads (graphql-ws players' `liveGame`). Node 20's keep-alive agent ignores
 * the server's `Keep-Alive: timeout=5` unless it has a timeout of its own: a reused socket the
 * server had closed then failed with ECONNRESET.
 */
export class HttpReads {
  private readonly agent = new Agent({ keepAlive: true, timeout: 4_000, maxSockets: 64 });
  /** Reads that failed or were refused: must be 0. */
  failures = 0;

  /**
   * A query over HTTP as Apollo's HttpLink sends it (cookie, X-Device-ID, JSON), through a
   * keep-alive agent. Its answer is not used: the read's cost to the gateway is the point.
   */
  post(
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
          'user-agent': BROWSER_USER_AGENT,
          'x-device-id': deviceId,
        },
      },
      (response) => {
        if (response.statusCode !== 200) this.failures += 1;
        response.resume();
      },
    );
    call.on('error', () => {
      this.failures += 1;
    });
    call.end(body);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** What both protocols keep of one socket: live once its snapshot came, why it was refused. */
interface WatchedSocket {
  live: boolean;
  /** When the upgrade was answered (performance.now()). */
  openedAt: number;
  refused: string | undefined;
  /** Ends the socket because its subscription was refused. */
  refuse(why: string): void;
}

/**
 * Times the socket's upgrade (`onOpen` then makes the protocol's first move) and wires its end
 * to the driver (`SeatHost.track`).
 */
function watched(host: SeatHost, seat: Seat, socket: WebSocket, onOpen: () => void) {
  const state: WatchedSocket = {
    live: false,
    openedAt: 0,
    refused: undefined,
    refuse(why) {
      state.refused = `subscribe refused: ${why.slice(0, 200)}`;
      socket.terminate();
    },
  };
  const connectStarted = performance.now();
  socket.on('open', () => {
    state.openedAt = performance.now();
    host.upgraded(seat, state.openedAt - connectStarted);
    onOpen();
  });
  host.track(
    socket,
    seat,
    () => state.live,
    () => state.refused,
  );
  return state;
}

/**
 * One player as the web app plays (web/src/app/apollo.ts, useLiveGame, GamePage): a
 * graphql-ws socket on `/graphql` with the app's connection_init params, the `liveGame` read
 * over HTTP, the GameEvents and TournamentsChanged subscriptions, a join on arrival, and
 * castVote over the socket, every operation as Apollo prints it and with a fresh UUID id.
 * Coming back after a drop it subscribes again (graphql-ws resubscribes what was active).
 */
export function openAppSocket(host: SeatHost, seat: Seat): void {
  const { gatewayUrls, cookieName, tournamentIds, sourceAddresses, operations } = host.options;
  if (!operations) throw new Error('the graphql-ws driver needs the app operations');
  const player = host.options.players[seat.index]!;
  const tournamentId = tournamentIds[player.tournament]!;
  const httpBase = gatewayUrls[seat.gateway]!;
  // As the web app: the device id in connection_init only, never in the URL (ingress logs).
  const url = `${httpBase.replace(/^http/, 'ws')}/graphql`;
  const localAddress = sourceAddresses[seat.index % sourceAddresses.length];
  const cookie = `${cookieName}=${player.sessionId}`;
  const ids = {
    events: randomUUID(),
    list: randomUUID(),
    join: randomUUID(),
    vote: randomUUID(),
  };
  const socket = new WebSocket(url, 'graphql-transport-ws', {
    headers: { cookie, 'user-agent': BROWSER_USER_AGENT },
    perMessageDeflate: false,
    ...(localAddress ? { localAddress } : {}),
  });
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  const subscribe = (id: string, operation: AppOperation, variables: object) =>
    send({ id, type: 'subscribe', payload: { ...operation, variables } });
  let voteAsked = false;
  const state = watched(host, seat, socket, () =>
    send({
      type: 'connection_init',
      payload: { 'X-Device-ID': player.deviceId, deviceId: player.deviceId },
    }),
  );
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) return;
    const text = data.toString();
    if (text.startsWith('{"type":"connection_ack"')) {
      // The page's first moves, together: the snapshot read, its two subscriptions, the join.
      if (!seat.arrived) {
        host.reads.post(httpBase, cookie, player.deviceId, operations.liveGame, {
          tournamentId,
        });
      }
      subscribe(ids.events, operations.gameEvents, { tournamentId });
      subscribe(ids.list, operations.ownTournamentChanged, { tournamentId });
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
      if (!voteAsked || host.hasAnswer(seat)) return;
      if (isNext && text.includes('"castVote":{')) host.answered(seat, 'vote_processed');
      else if (isNext || text.startsWith('","type":"error"', 7 + id.length)) {
        host.answered(seat, graphqlErrorCode(text));
      }
      return;
    }
    if (id !== ids.events) return;
    if (!isNext) {
      if (!state.live) state.refuse(text);
      return;
    }
    const type = eventTypeOf(text);
    if (!state.live) {
      if (type !== 'GameSnapshot') {
        state.refuse(text);
        return;
      }
      state.live = true;
      seat.cast = (imageId) => {
        voteAsked = true;
        seat.voteSentAt = performance.now();
        subscribe(ids.vote, operations.castVote, { tournamentId, roundNumber: 1, imageId });
      };
      host.snapshot(seat, text, state.openedAt);
      return;
    }
    if (type === 'RoundVotingStarted') {
      const voting = host.voting.app(player.tournament, text);
      host.votingOpened(seat, voting);
    } else if (type === 'RoundResults') {
      host.results(seat, text, appTallyOf);
    }
  });
}

/** One player on the spec's legacy `/ws` socket (`subscribe_tournament`, `game_action`). */
export function openWsSocket(host: SeatHost, seat: Seat): void {
  const { gatewayUrls, cookieName, tournamentIds, sourceAddresses } = host.options;
  const player = host.options.players[seat.index]!;
  const tournamentId = tournamentIds[player.tournament]!;
  const base = gatewayUrls[seat.gateway]!.replace(/^http/, 'ws');
  const url = `${base}/ws?deviceId=${encodeURIComponent(player.deviceId)}`;
  const localAddress = sourceAddresses[seat.index % sourceAddresses.length];
  const socket = new WebSocket(url, {
    headers: { cookie: `${cookieName}=${player.sessionId}`, 'user-agent': BROWSER_USER_AGENT },
    perMessageDeflate: false,
    ...(localAddress ? { localAddress } : {}),
  });
  let voteAsked = false;
  const state = watched(host, seat, socket, () =>
    socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
  );
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary) return;
    const text = data.toString();
    if (text.startsWith(VOTE_PROCESSED)) {
      if (voteAsked && !host.hasAnswer(seat)) host.answered(seat, 'vote_processed');
    } else if (text.startsWith(VOTING_STARTED)) {
      const voting = host.voting.ws(player.tournament, text);
      host.votingOpened(seat, voting);
    } else if (text.startsWith(RESULTS)) {
      host.results(seat, text, tallyOf);
    } else if (text.startsWith(STATE)) {
      if (state.live) return;
      state.live = true;
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
      host.snapshot(seat, text, state.openedAt);
    } else if (text.startsWith(ERROR)) {
      const { code } = JSON.parse(text) as { code: string };
      if (voteAsked && !host.hasAnswer(seat)) host.answered(seat, code);
      else if (!state.live) state.refuse(code);
    }
  });
}
