import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { isAppError, systemClock, type Clock, type Logger } from '@underdog/kit';
import { appErrorFromRpc } from '@underdog/rpc';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { RequestOrigin } from '../session';
import type { SessionActors } from '../session-actors';
import { SlicedFanOut } from './sliced-fan-out';
import { MessageRate, SocketSession } from './socket-session';
import type { TournamentView } from '../tournaments';
import { parseClientMessage, type ClientMessage } from './client-messages';
import type { RealtimeListener } from './hub';
import {
  gameEventMessages,
  snapshotMessage,
  tournamentChangeMessages,
  type ServerMessage,
} from './messages';
import type { RealtimeMetrics } from './metrics';
import type { LiveGamePort, RealtimeLimits } from './ports';
import { toLiveGameView, type GameEventView, type TournamentChange } from './views';

/** Close codes the gateway uses on `/ws` (1009, too big, is sent by the ws library itself). */
export const WsCloseCode = {
  goingAway: 1001,
  /** The client sent more messages than its rate allows. */
  policyViolation: 1008,
} as const;

export interface WsEndpointOptions {
  logger: Logger;
  origins: RequestOrigins;
  limits: RealtimeLimits;
  metrics: RealtimeMetrics;
  /** The current tournament list, sent to each new connection. */
  listTournaments: () => Promise<TournamentView[]>;
  /** The game; absent until the engine is wired (no snapshot, votes refused). */
  games?: LiveGamePort | undefined;
  /** The server clock the views measure time left by; default: the system clock. */
  clock?: Clock;
  /** The gateway's session lookups: a logout through it shows on open sockets at once. */
  actors?: SessionActors | undefined;
}

/**
 * One or more messages, serialised and framed once and then written as they are to every
 * socket they go to, in one write. A server's frames are not masked (RFC 6455 §5.1), so a text
 * frame's bytes are the same for every socket: `ws` frames each `send` again (its header, its
 * own write), a third of a broadcast's CPU on its own (docs/benchmarks.md, the sixth pass).
 */
interface Packet {
  /** The messages' JSON, for `ws` to send itself when the frames cannot be written directly. */
  payloads: Buffer[];
  /** The text frames, one after the other; undefined if this `ws` cannot frame them. */
  wire: Buffer | undefined;
}

type FrameText = (
  data: Buffer,
  options: { fin: boolean; opcode: number; mask: boolean },
) => Buffer[];

/**
 * ws's own framing, `Sender.frame`: public since websockets/ws#1016 for exactly this (a
 * broadcast framed once), but not in @types/ws. Undefined if a future ws drops it.
 */
const frameText = ((WebSocket as unknown as { Sender?: { frame?: unknown } }).Sender?.frame ??
  undefined) as FrameText | undefined;

const TEXT_OPCODE = 0x1;

function packetOf(...messages: ServerMessage[]): Packet {
  const payloads = messages.map((message) => Buffer.from(JSON.stringify(message)));
  return {
    payloads,
    wire: frameText
      ? Buffer.concat(
          payloads.flatMap((payload) =>
            frameText(payload, { fin: true, opcode: TEXT_OPCODE, mask: false }),
          ),
        )
      : undefined,
  };
}

/** Several packets as one (one write), in order. */
function joinPackets(packets: readonly Packet[]): Packet {
  if (packets.length === 1) return packets[0] as Packet;
  const wires = packets.map((packet) => packet.wire);
  return {
    payloads: packets.flatMap((packet) => packet.payloads),
    wire: wires.every((wire) => wire !== undefined) ? Buffer.concat(wires) : undefined,
  };
}

/**
 * The TCP socket under a `ws` WebSocket, which keeps it in a private field, to write framed
 * packets to. Frames written there stay in order with the ones ws writes itself (pings, pongs,
 * the close frame): ws writes each of its frames synchronously in one call, and never queues
 * one, since this server does not compress (`perMessageDeflate: false`) and sends no Blobs.
 * Undefined if a future ws drops the field: then ws sends each message itself, as before.
 */
function tcpSocketOf(socket: WebSocket): Pick<Duplex, 'write'> | undefined {
  const tcp = (socket as unknown as { _socket?: Partial<Duplex> })._socket;
  return typeof tcp?.write === 'function' ? (tcp as Duplex) : undefined;
}

/**
 * How long the list frame sent to new connections may be reused. Every change replaces it at
 * once (with the list the change was broadcast with); the age bound covers anything else.
 */
const listPacketMaxAgeMs = 2_000;

/** The share of the heartbeat interval its pings are spread over (`WsEndpoint.beat`). */
const heartbeatSpreadShare = 0.2;

/** Packets kept for a subscriber while its snapshot loads; past this it is dropped as stuck. */
const maxPendingPackets = 1000;

class WsConnection {
  tournamentId: string | null = null;
  /** Packets held back while the snapshot loads, so the snapshot comes first. */
  pending: Packet[] | null = null;
  subscribeSeq = 0;
  /** The newest tournament change whose list this connection got (lists never go back). */
  listVersion = 0;
  alive = true;
  private readonly rate: MessageRate;
  /** The upgrade's session, resolved once for the socket (`SocketSession`). */
  readonly session: SocketSession;

  constructor(
    readonly socket: WebSocket,
    request: IncomingMessage,
    origins: RequestOrigins,
    limits: RealtimeLimits,
    actors: SessionActors | undefined,
  ) {
    this.rate = new MessageRate(limits);
    this.session = new SocketSession(request, origins, limits, actors);
  }

  currentOrigin(): Promise<RequestOrigin> {
    return this.session.currentOrigin();
  }

  /** The client's message budget (1008 past it). */
  takeToken(): boolean {
    return this.rate.take();
  }
}

/**
 * The spec's `/ws` socket (docs/api-ws.md): `subscribe_tournament` and `game_action` in, the §7
 * messages out. Every connection gets the tournament list's changes; a subscribed one gets its
 * tournament's snapshot then its game events. Each event is serialised once and the same buffer
 * written to every local subscriber; a subscriber whose unsent data passes the bound is dropped.
 */
export class WsEndpoint implements RealtimeListener {
  readonly server: WebSocketServer;
  private readonly connections = new Set<WsConnection>();
  private readonly byTournament = new Map<string, Set<WsConnection>>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly fanOut: SlicedFanOut<WsConnection>;
  /**
   * Tournament changes for the sockets that do not watch the changed tournament, paced: two
   * tournaments going live together otherwise wrote both changes to every socket at the moment
   * the first one's votes began (docs/benchmarks.md). Its own lane, so it never holds up a
   * game's events in `fanOut`.
   */
  private readonly newsFanOut: SlicedFanOut<WsConnection>;
  private listVersion = 0;
  /** The heartbeat's pings, paced (see `beat`). */
  private readonly heartbeatFanOut: SlicedFanOut<WsConnection>;
  /**
   * The `tournaments_update` frame for new connections, serialised once: a thousand sockets
   * opening in a second cost one list read, not a thousand (docs/benchmarks.md).
   */
  private listPacket: { packet: Promise<Packet>; at: number } | undefined;

  constructor(private readonly options: WsEndpointOptions) {
    this.logger = options.logger.child({ component: 'ws' });
    this.clock = options.clock ?? systemClock;
    const onError = (error: unknown) =>
      this.logger.error({ err: error }, 'ws broadcast to one socket failed');
    this.fanOut = new SlicedFanOut(options.limits.fanOutSliceSize, onError);
    this.newsFanOut = new SlicedFanOut(options.limits.fanOutSliceSize, onError);
    this.heartbeatFanOut = new SlicedFanOut(options.limits.fanOutSliceSize, onError);
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: options.limits.maxPayloadBytes,
      perMessageDeflate: false,
    });
    this.server.on('connection', (socket: WebSocket, request: IncomingMessage) =>
      this.open(socket, request),
    );
    this.heartbeat = setInterval(() => this.beat(), options.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /** How many connections are subscribed to a tournament (tests and diagnostics). */
  subscriberCount(tournamentId: string): number {
    return this.byTournament.get(tournamentId)?.size ?? 0;
  }

  gameEvent(view: GameEventView): void {
    const subscribers = this.byTournament.get(view.tournamentId);
    if (!subscribers || subscribers.size === 0) return;
    const messages = gameEventMessages(view);
    if (messages.length === 0) return;
    const packet = packetOf(...messages);
    const { tournamentId } = view;
    this.fanOut.push(
      [...subscribers],
      (connection) => {
        // Unsubscribed, or moved to another tournament, while the broadcast was under way.
        if (connection.tournamentId === tournamentId) this.write(connection, packet);
      },
      // The live total is news, superseded a second later: paced, so votes go first.
      view.type === 'VoteTotal' ? this.options.limits.voteTotalSpreadMs : 0,
    );
  }

  tournamentChange(change: TournamentChange, list: TournamentView[] | null): void {
    this.listPacket = list
      ? {
          packet: Promise.resolve(packetOf({ type: 'tournaments_update', data: list })),
          at: Date.now(),
        }
      : undefined;
    if (this.connections.size === 0) return;
    const [listMessage, ...newsMessages] = tournamentChangeMessages(change, list ?? []);
    // Without the list (the tournament service did not answer) only the live/finished news go.
    const withList = list && listMessage ? packetOf(listMessage, ...newsMessages) : undefined;
    const newsOnly = newsMessages.length > 0 ? packetOf(...newsMessages) : undefined;
    const version = ++this.listVersion;
    const deliver = (connection: WsConnection) => {
      // The two lanes may cross: a list older than one the socket already has is left out.
      if (withList && version > connection.listVersion) {
        connection.listVersion = version;
        this.write(connection, withList);
      } else if (newsOnly) {
        this.write(connection, newsOnly);
      }
    };
    const watchers: WsConnection[] = [];
    const others: WsConnection[] = [];
    for (const connection of this.connections) {
      (connection.tournamentId === change.tournamentId ? watchers : others).push(connection);
    }
    this.fanOut.push(watchers, deliver);
    this.newsFanOut.push(others, deliver, this.options.limits.tournamentNewsSpreadMs);
  }

  /** Closes every connection (1001, going away) and stops the heartbeat. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.fanOut.clear();
    this.newsFanOut.clear();
    this.heartbeatFanOut.clear();
    for (const connection of this.connections) {
      connection.socket.close(WsCloseCode.goingAway, 'Server shutting down');
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.socket.terminate();
  }

  private open(socket: WebSocket, request: IncomingMessage): void {
    const connection = new WsConnection(
      socket,
      request,
      this.options.origins,
      this.options.limits,
      this.options.actors,
    );
    this.connections.add(connection);
    this.options.metrics.connections.inc({ protocol: 'ws' });
    socket.on('pong', () => {
      connection.alive = true;
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      void this.receive(connection, data, isBinary);
    });
    socket.on('error', (error) => {
      this.logger.debug({ err: error }, 'ws connection error');
    });
    socket.on('close', () => {
      this.connections.delete(connection);
      this.unsubscribe(connection);
      this.options.metrics.connections.dec({ protocol: 'ws' });
    });
    void this.currentListPacket().then(
      (packet) => this.write(connection, packet),
      (error: unknown) => this.logger.warn({ err: error }, 'no tournament list for a new socket'),
    );
  }

  /** The list for a new connection: one read shared by the connections of the same moment. */
  private currentListPacket(): Promise<Packet> {
    const cached = this.listPacket;
    if (cached && Date.now() - cached.at <= listPacketMaxAgeMs) return cached.packet;
    const entry = {
      packet: this.options
        .listTournaments()
        .then((list) => packetOf({ type: 'tournaments_update', data: list })),
      at: Date.now(),
    };
    this.listPacket = entry;
    entry.packet.catch(() => {
      if (this.listPacket === entry) this.listPacket = undefined;
    });
    return entry.packet;
  }

  private async receive(connection: WsConnection, data: RawData, isBinary: boolean) {
    if (!connection.takeToken()) {
      connection.socket.close(WsCloseCode.policyViolation, 'Too many messages');
      return;
    }
    if (isBinary) {
      this.reply(connection, { type: 'error', code: 'BAD_MESSAGE', message: 'Send text frames' });
      return;
    }
    const parsed = parseClientMessage(rawText(data));
    if (!parsed.ok) {
      this.reply(connection, { type: 'error', code: parsed.code, message: parsed.message });
      return;
    }
    try {
      await this.handle(connection, parsed.message);
    } catch (error) {
      this.logger.error({ err: error }, 'ws message handling failed');
    }
  }

  private async handle(connection: WsConnection, message: ClientMessage) {
    switch (message.type) {
      case 'subscribe_tournament':
        return this.subscribe(connection, message.tournamentId);
      case 'game_action':
        return this.vote(connection, message);
    }
  }

  private async subscribe(connection: WsConnection, tournamentId: string) {
    this.unsubscribe(connection);
    connection.tournamentId = tournamentId;
    let subscribers = this.byTournament.get(tournamentId);
    if (!subscribers) this.byTournament.set(tournamentId, (subscribers = new Set()));
    subscribers.add(connection);
    const games = this.options.games;
    if (!games) return;

    const seq = ++connection.subscribeSeq;
    connection.pending = [];
    let first: ServerMessage;
    try {
      const game = await games.liveGame(await connection.currentOrigin(), tournamentId);
      first = snapshotMessage(toLiveGameView(game, this.clock.now()));
    } catch (error) {
      first = errorMessage(error, tournamentId, this.logger);
    }
    if (seq !== connection.subscribeSeq) return; // a newer subscribe took over
    const held = connection.pending ?? [];
    connection.pending = null;
    this.write(connection, joinPackets([packetOf(first), ...held]));
  }

  private unsubscribe(connection: WsConnection) {
    if (connection.tournamentId === null) return;
    const subscribers = this.byTournament.get(connection.tournamentId);
    subscribers?.delete(connection);
    if (subscribers?.size === 0) this.byTournament.delete(connection.tournamentId);
    connection.tournamentId = null;
    connection.pending = null;
    connection.subscribeSeq += 1;
  }

  private async vote(
    connection: WsConnection,
    action: Extract<ClientMessage, { type: 'game_action' }>,
  ) {
    const games = this.options.games;
    if (!games) {
      this.reply(connection, {
        type: 'error',
        code: 'NO_LIVE_GAME',
        message: 'There is no live game to vote in',
        tournamentId: action.tournamentId,
      });
      return;
    }
    try {
      const vote = await games.vote(await connection.currentOrigin(), {
        tournamentId: action.tournamentId,
        roundNumber: action.round,
        imageId: action.imageId,
      });
      this.reply(connection, {
        type: 'vote_processed',
        tournamentId: vote.tournamentId,
        imageId: vote.imageId,
        round: vote.roundNumber,
      });
    } catch (error) {
      this.reply(connection, errorMessage(error, action.tournamentId, this.logger));
    }
  }

  private reply(connection: WsConnection, message: ServerMessage) {
    // A direct answer goes out at once, even while the snapshot loads.
    this.send(connection, packetOf(message));
  }

  private write(connection: WsConnection, packet: Packet) {
    if (connection.pending) {
      connection.pending.push(packet);
      if (connection.pending.length > maxPendingPackets) this.drop(connection);
      return;
    }
    this.send(connection, packet);
  }

  private send(connection: WsConnection, packet: Packet) {
    const { socket } = connection;
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > this.options.limits.maxBufferedBytes) {
      this.drop(connection);
      return;
    }
    // The packet's frames (round_update + round_voting_started, a tournament change) leave in
    // one write, framed once for every socket.
    const tcp = tcpSocketOf(socket);
    if (tcp && packet.wire) {
      tcp.write(packet.wire);
      return;
    }
    for (const payload of packet.payloads) socket.send(payload, { binary: false });
  }

  /** A slow or stuck reader: its buffered data goes with it; a close frame would only queue. */
  private drop(connection: WsConnection) {
    this.options.metrics.slowConsumersDropped.inc({ protocol: 'ws' });
    this.logger.info(
      { bufferedBytes: connection.socket.bufferedAmount },
      'slow ws subscriber dropped',
    );
    connection.pending = null;
    this.unsubscribe(connection);
    connection.socket.terminate();
  }

  /**
   * Pings every connection, paced over a fifth of the interval: 10,000 pings in one turn (and
   * their 10,000 pongs right after) held up every vote arriving meanwhile. Each connection is
   * still pinged once an interval, at about the same point of it.
   */
  private beat() {
    this.heartbeatFanOut.push(
      [...this.connections],
      (connection) => this.beatOne(connection),
      this.options.limits.heartbeatMs * heartbeatSpreadShare,
    );
  }

  /** A connection that did not answer the previous ping is terminated; the others are pinged. */
  private beatOne(connection: WsConnection) {
    if (!this.connections.has(connection)) return; // closed since the beat began
    if (!connection.alive) {
      connection.socket.terminate();
      return;
    }
    connection.alive = false;
    connection.socket.ping();
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** A refusal as the `error` message: its stable reason (e.g. VOTING_CLOSED) and message. */
function errorMessage(error: unknown, tournamentId: string, logger: Logger): ServerMessage {
  const appError = isAppError(error) ? error : appErrorFromRpc(error);
  if (appError.code === 'INTERNAL') logger.error({ err: error }, 'ws request failed');
  return {
    type: 'error',
    code: appError.publicCode,
    message: appError.code === 'INTERNAL' ? 'Something went wrong' : appError.message,
    tournamentId,
  };
}
