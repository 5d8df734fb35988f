import type { IncomingMessage } from 'node:http';
import { isAppError, systemClock, type Clock, type Logger } from '@underdog/kit';
import { appErrorFromRpc } from '@underdog/rpc';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { SessionActors } from '../session-actors';
import { FirstMessageDeadline } from '../sockets/first-message';
import { encodedMessages, type Encoded } from './core/frames';
import { Subscriber } from './core/channels';
import type { RealtimeCore } from './core/realtime-core';
import type { TournamentView } from '../tournaments';
import { parseClientMessage, type ClientMessage } from './client-messages';
import { snapshotMessage, type ServerMessage } from './messages';
import type { LiveGamePort, RealtimeLimits } from './ports';
import { toLiveGameView } from './views';
import { WsConnection, WsGameChannel, WsListChannel, wsGameChannelKey } from './ws-channels';

/** Close codes the gateway uses on `/ws` (1009, too big, is sent by the ws library itself). */
export const WsCloseCode = {
  goingAway: 1001,
  /** The client sent more messages than its rate allows. */
  policyViolation: 1008,
  /**
   * The client sent nothing within `firstMessageTimeoutMs` of opening (the code graphql-ws
   * closes a socket with when `connection_init` is late, as HTTP's 408).
   */
  firstMessageTimeout: 4408,
} as const;

export interface WsEndpointOptions {
  logger: Logger;
  origins: RequestOrigins;
  limits: RealtimeLimits;
  /** The real-time core that fans events out to this endpoint's sockets (and graphql-ws's). */
  core: RealtimeCore;
  /** The current tournament list, sent to each new connection. */
  listTournaments: () => Promise<TournamentView[]>;
  /** The game; absent until the engine is wired (no snapshot, votes refused). */
  games?: LiveGamePort | undefined;
  /**
   * The gateway's clock: the views' time left, the sessions' ages, the message budgets and the
   * shared list's age are measured by it; default: the system clock.
   */
  clock?: Clock;
  /** The gateway's session lookups: a logout through it shows on open sockets at once. */
  actors?: SessionActors | undefined;
}

/**
 * How long the list frame sent to new connections may be reused. Every change replaces it at
 * once (with the list the change was broadcast with); the age bound covers anything else.
 */
const listPacketMaxAgeMs = 2_000;

/**
 * The spec's `/ws` socket (docs/api-ws.md): `subscribe_tournament` and `game_action` in, the §7
 * messages out. Every connection gets the tournament list's changes; a subscribed one gets its
 * tournament's snapshot then its game events. The fan-out, the hold, the slow-reader drop and
 * the heartbeat are the real-time core's (`RealtimeCore`); this is the protocol: its messages,
 * each event serialised and framed once for every socket (`wsEncoder`).
 */
export class WsEndpoint {
  readonly server: WebSocketServer;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly core: RealtimeCore;
  private readonly listChannel: WsListChannel;
  /**
   * The `tournaments_update` frame for new connections, serialised once: a thousand sockets
   * opening in a second cost one list read, not a thousand (docs/benchmarks.md).
   */
  private listPacket: { packet: Promise<Encoded>; at: number } | undefined;
  /** New sockets that have sent nothing yet: closed 4408 once `firstMessageTimeoutMs` passed. */
  private readonly silent: FirstMessageDeadline;

  constructor(private readonly options: WsEndpointOptions) {
    this.logger = options.logger.child({ component: 'ws' });
    this.clock = options.clock ?? systemClock;
    this.core = options.core;
    this.silent = new FirstMessageDeadline(
      options.limits.firstMessageTimeoutMs,
      (socket) => socket.close(WsCloseCode.firstMessageTimeout, 'First message timeout'),
      this.clock,
    );
    this.listChannel = new WsListChannel((packet) => {
      this.listPacket = packet ? { packet: Promise.resolve(packet), at: this.nowMs() } : undefined;
    });
    this.core.addChannel(this.listChannel);
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: options.limits.maxPayloadBytes,
      perMessageDeflate: false,
    });
    this.server.on('connection', (socket: WebSocket, request: IncomingMessage) =>
      this.open(socket, request),
    );
  }

  /** How many connections are subscribed to a tournament (tests and diagnostics). */
  subscriberCount(tournamentId: string): number {
    return this.core.subscriberCount(tournamentId, 'ws');
  }

  /** Closes every connection (1001, going away). */
  async close(): Promise<void> {
    this.silent.stop();
    for (const socket of this.server.clients) {
      socket.close(WsCloseCode.goingAway, 'Server shutting down');
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.server.clients) socket.terminate();
  }

  private open(socket: WebSocket, request: IncomingMessage): void {
    const list = new Subscriber(this.core.open(socket, 'ws'), this.listChannel);
    this.core.join(list);
    const connection = new WsConnection(
      socket,
      list,
      request,
      this.options.origins,
      this.options.limits,
      this.options.actors,
      this.clock,
    );
    this.silent.watch(socket);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      this.silent.met(socket);
      void this.receive(connection, data, isBinary);
    });
    socket.on('error', (error) => {
      this.logger.debug({ err: error }, 'ws connection error');
    });
    void this.currentListPacket().then(
      (packet) => this.core.send(list, packet),
      (error: unknown) => this.logger.warn({ err: error }, 'no tournament list for a new socket'),
    );
  }

  private nowMs(): number {
    return this.clock.now().getTime();
  }

  /** The list for a new connection: one read shared by the connections of the same moment. */
  private currentListPacket(): Promise<Encoded> {
    const cached = this.listPacket;
    if (cached && this.nowMs() - cached.at <= listPacketMaxAgeMs) return cached.packet;
    const entry = {
      packet: this.options
        .listTournaments()
        .then((list) => encodedMessages({ type: 'tournaments_update', data: list })),
      at: this.nowMs(),
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
    if (connection.game) this.core.leave(connection.game);
    const channel = this.core.channel(
      wsGameChannelKey(tournamentId),
      () => new WsGameChannel(tournamentId),
    );
    const subscriber = new Subscriber(connection.list.connection, channel);
    connection.game = subscriber;
    this.core.join(subscriber);
    const games = this.options.games;
    if (!games) return;

    this.core.hold(subscriber);
    let first: ServerMessage;
    try {
      const game = await games.liveGame(await connection.currentOrigin(), tournamentId);
      first = snapshotMessage(toLiveGameView(game, this.clock.now()));
    } catch (error) {
      first = errorMessage(error, tournamentId, this.logger);
    }
    // A newer subscribe took over, or the socket went: nothing to send.
    if (!subscriber.active) return;
    this.core.release(subscriber, encodedMessages(first));
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
      const origin = await connection.currentOrigin();
      const vote = await games.vote(origin, {
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

  /** A direct answer goes out at once, even while the snapshot loads. */
  private reply(connection: WsConnection, message: ServerMessage) {
    this.core.send(connection.list, encodedMessages(message));
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
