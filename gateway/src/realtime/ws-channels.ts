/**
 * What the `/ws` endpoint (ws-endpoint.ts) registers in the real-time core: its two channels (a
 * tournament's game events, the tournament list) and its connection (the list subscriber, the
 * session and the message budget of one socket).
 */
import type { IncomingMessage } from 'node:http';
import type { Clock } from '@underdog/kit';
import type { WebSocket } from 'ws';
import type { RequestOrigins } from '../request-origins';
import type { RequestOrigin } from '../session';
import type { SessionActors } from '../session-actors';
import type { TournamentView } from '../tournaments';
import type { Channel, ChangeMessages, Subscriber } from './core/channels';
import { wsEncoder } from './core/encoders';
import { encodedMessages, type Encoded } from './core/frames';
import { gameEventMessages, tournamentChangeMessages } from './messages';
import type { RealtimeLimits } from './ports';
import { MessageRate, SocketSession } from './socket-session';
import type { GameEventView, TournamentChange } from './views';

/** One tournament's `/ws` sockets: its game events as the §7 messages, framed once. */
export class WsGameChannel implements Channel {
  readonly key: string;
  readonly encoder = wsEncoder;
  readonly subscribers = new Set<Subscriber>();

  constructor(readonly tournamentId: string) {
    this.key = wsGameChannelKey(tournamentId);
  }

  gameEvent(view: GameEventView): Encoded | undefined {
    const messages = gameEventMessages(view);
    return messages.length > 0 ? encodedMessages(...messages) : undefined;
  }
}

export function wsGameChannelKey(tournamentId: string): string {
  return `ws\u0000${tournamentId}`;
}

/**
 * Every `/ws` socket: the tournament list's changes (and the live/finished news). It stays
 * registered without sockets, to keep the list frame for new connections current.
 */
export class WsListChannel implements Channel {
  readonly key = 'ws-list';
  readonly tournamentId = null;
  readonly encoder = wsEncoder;
  readonly subscribers = new Set<Subscriber>();
  readonly permanent = true;

  constructor(private readonly onList: (packet: Encoded | undefined) => void) {}

  tournamentChange(change: TournamentChange, list: TournamentView[] | null): ChangeMessages {
    this.onList(list ? encodedMessages({ type: 'tournaments_update', data: list }) : undefined);
    if (this.subscribers.size === 0) return {};
    const [listMessage, ...newsMessages] = tournamentChangeMessages(change, list ?? []);
    return {
      // Without the list (the tournament service did not answer) only the live/finished news go.
      withList: list && listMessage ? encodedMessages(listMessage, ...newsMessages) : undefined,
      newsOnly: newsMessages.length > 0 ? encodedMessages(...newsMessages) : undefined,
    };
  }
}

export class WsConnection {
  /** Its tournament's game, once subscribed. */
  game: Subscriber | null = null;
  private readonly rate: MessageRate;
  /** The upgrade's session, resolved once for the socket (`SocketSession`). */
  readonly session: SocketSession;

  constructor(
    readonly socket: WebSocket,
    /** The list's changes; also how direct answers reach the socket. */
    readonly list: Subscriber,
    request: IncomingMessage,
    origins: RequestOrigins,
    limits: RealtimeLimits,
    actors: SessionActors | undefined,
    clock: Clock,
  ) {
    this.rate = new MessageRate(limits, clock);
    this.session = new SocketSession(request, origins, limits, actors, clock);
    list.connection.userOf = () => this.session.userId();
  }

  currentOrigin(): Promise<RequestOrigin> {
    return this.session.currentOrigin();
  }

  /** The client's message budget (1008 past it). */
  takeToken(): boolean {
    return this.rate.take();
  }
}
