/**
 * What the real-time core (realtime-core.ts) fans out over, for both protocols: a socket
 * (`CoreSocket`, `Connection`), its subscriptions (`Subscriber`), the channels they join and how
 * a protocol puts a channel's messages on one socket (`ProtocolEncoder`).
 */
import type { TournamentView } from '../../tournaments';
import type { RealtimeProtocol } from '../metrics';
import type { GameEventView, TournamentChange } from '../views';
import type { Encoded } from './frames';

/** What the core needs of a `ws` WebSocket (a test may stand in for it). */
export interface CoreSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  ping(): void;
  terminate(): void;
  send(data: string): void;
  on(event: 'pong', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** One open socket of either protocol. */
export class Connection {
  /** Answered the last ping (or opened since). */
  alive = true;
  /** Its subscriptions: one or two (`/ws`: the list and a tournament; graphql-ws: its operations). */
  readonly subscribers: Subscriber[] = [];
  /**
   * Who is signed in on it, as its session resolved it (the protocol sets this): how a message
   * meant for one player (`recipientUserId`) finds their sockets. Unset: a visitor's.
   */
  userOf: (() => string | undefined | Promise<string | undefined>) | undefined;

  constructor(
    readonly socket: CoreSocket,
    readonly protocol: RealtimeProtocol,
  ) {}

  /** Whether one of its subscriptions follows this tournament's game. */
  watches(tournamentId: string): boolean {
    for (const subscriber of this.subscribers) {
      if (subscriber.channel.tournamentId === tournamentId) return true;
    }
    return false;
  }
}

/** One subscription of one socket to one channel. */
export class Subscriber {
  /** Messages held back while its snapshot loads, so the snapshot comes first. */
  held: Encoded[] | null = null;
  /** The newest tournament change whose list it got (lists never go back). */
  listVersion = 0;
  /** False once unsubscribed, dropped or closed: anything still on its way is left out. */
  active = true;

  constructor(
    readonly connection: Connection,
    readonly channel: Channel,
    /**
     * The graphql-ws subscription id (the string graphql-ws keeps anyway), which the encoder
     * puts in the envelope; none for `/ws`, whose frames are the same for every socket.
     */
    readonly id?: string,
  ) {}

  /** Called once when the core lets it go (a subscription's iterator ends there). */
  ended(): void {}
}

/** What a tournament change is for a channel's subscribers. */
export interface ChangeMessages {
  /** With the list after the change: sent unless the subscriber already has a newer list. */
  withList?: Encoded | undefined;
  /** Without the list (`/ws`'s live/finished news): sent when the list is left out. */
  newsOnly?: Encoded | undefined;
}

/**
 * Subscribers that get the same message for an event: all the `/ws` sockets of a tournament,
 * or the graphql-ws subscriptions of one operation (document, operation name, variables). The
 * channel encodes each event once for all of them; its encoder writes it to each socket.
 */
export interface Channel {
  /** Unique among the core's channels. */
  readonly key: string;
  /** The tournament whose game events it gets; null: it gets the tournament list's changes. */
  readonly tournamentId: string | null;
  readonly encoder: ProtocolEncoder;
  readonly subscribers: Set<Subscriber>;
  /** Kept registered without subscribers (it caches something for the next ones). */
  readonly permanent?: boolean;
  gameEvent?(view: GameEventView): Encoded | undefined | Promise<Encoded | undefined>;
  tournamentChange?(
    change: TournamentChange,
    list: TournamentView[] | null,
  ): ChangeMessages | Promise<ChangeMessages>;
}

/**
 * How a protocol puts a channel's encoded messages on one subscriber's socket: `/ws` writes
 * the frames as they are; graphql-ws frames each payload in the subscriber's envelope, so only
 * the subscription id is written per socket.
 */
export interface ProtocolEncoder {
  /** The bytes of these messages for this subscriber: one text frame each, in order. */
  wire(subscriber: Subscriber, messages: readonly Encoded[]): Buffer;
  /** The same as texts, for a socket whose TCP stream cannot be written directly. */
  texts(subscriber: Subscriber, messages: readonly Encoded[]): string[];
}
