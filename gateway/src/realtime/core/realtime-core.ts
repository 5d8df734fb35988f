// Over 300 lines: one class, whose registry, fan-out lanes and heartbeat share its state.
import type { Logger } from '@underdog/kit';
import type { TournamentView } from '../../tournaments';
import type { RealtimeListener } from '../hub';
import type { RealtimeMetrics, RealtimeProtocol } from '../metrics';
import type { RealtimeLimits } from '../ports';
import { SlicedFanOut } from '../sliced-fan-out';
import type { GameEventView, TournamentChange } from '../views';
import {
  Connection,
  type Channel,
  type CoreSocket,
  type ProtocolEncoder,
  type Subscriber,
} from './channels';
import { tcpSocketOf, type Encoded } from './frames';
import { TournamentLane } from './tournament-lane';

const OPEN = 1;

/** The share of the heartbeat interval its pings are spread over (`RealtimeCore.beat`). */
const heartbeatSpreadShare = 0.2;

/** Messages held for a subscriber while its snapshot loads; past this it is dropped as stuck. */
export const maxHeldMessages = 1000;

export interface RealtimeCoreOptions {
  logger: Logger;
  limits: RealtimeLimits;
  metrics: RealtimeMetrics;
}

/**
 * The one real-time fan-out of the gateway, for both socket protocols (ADR 10): one registry
 * of channels per tournament and of the list's channels, the snapshot hold, the sliced and
 * paced fan-out, the slow-reader drop and one paced heartbeat for every socket. A protocol
 * brings its channels (what an event is for its subscribers, encoded once) and its encoder
 * (how that goes on one socket); everything else is here, once.
 */
export class RealtimeCore implements RealtimeListener {
  private readonly connections = new Set<Connection>();
  private readonly channels = new Map<string, Channel>();
  private readonly byTournament = new Map<string, Set<Channel>>();
  private readonly listChannels = new Set<Channel>();
  /** Per tournament with subscribers: what waits to go to its sockets (`TournamentLane`). */
  private readonly lanes = new Map<string, TournamentLane>();
  private readonly logger: Logger;
  /** Game events and the watchers' tournament changes, a slice of sockets per turn. */
  private readonly fanOut: SlicedFanOut<Subscriber>;
  /**
   * Tournament changes for the sockets that do not watch the changed tournament, paced: two
   * tournaments going live together otherwise wrote both changes to every socket at the moment
   * the first one's votes began (docs/benchmarks.md). Its own lane, so it never holds up a
   * game's events in `fanOut`.
   */
  private readonly newsFanOut: SlicedFanOut<Subscriber>;
  /** The heartbeat's pings, paced (see `beat`). */
  private readonly heartbeatFanOut: SlicedFanOut<Connection>;
  private readonly heartbeat: NodeJS.Timeout;
  private listVersion = 0;

  constructor(private readonly options: RealtimeCoreOptions) {
    this.logger = options.logger.child({ component: 'realtime' });
    const onError = (error: unknown) =>
      this.logger.error({ err: error }, 'real-time broadcast to one socket failed');
    const { fanOutSliceSize } = options.limits;
    this.fanOut = new SlicedFanOut(fanOutSliceSize, onError);
    this.newsFanOut = new SlicedFanOut(fanOutSliceSize, onError);
    this.heartbeatFanOut = new SlicedFanOut(fanOutSliceSize, onError);
    this.heartbeat = setInterval(() => this.beat(), options.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Registers an open socket: counted, pinged by the heartbeat, let go when it closes. */
  open(socket: CoreSocket, protocol: RealtimeProtocol): Connection {
    const connection = new Connection(socket, protocol);
    this.connections.add(connection);
    this.options.metrics.connections.inc({ protocol });
    socket.on('pong', () => {
      connection.alive = true;
    });
    socket.once('close', () => this.closed(connection));
    return connection;
  }

  /** The channel registered under `key`, or the one `create` makes (registered on `join`). */
  channel<C extends Channel>(key: string, create: () => C): C {
    return (this.channels.get(key) as C | undefined) ?? create();
  }

  /** Registers a channel before anyone joins it (one that stays, `Channel.permanent`). */
  addChannel(channel: Channel): void {
    if (this.channels.get(channel.key) !== channel) this.register(channel);
  }

  /** Adds a subscriber to its channel and its connection. */
  join(subscriber: Subscriber): void {
    const { channel } = subscriber;
    if (this.channels.get(channel.key) !== channel) this.register(channel);
    channel.subscribers.add(subscriber);
    subscriber.connection.subscribers.push(subscriber);
  }

  /** Lets a subscriber go: nothing more reaches it (idempotent). */
  leave(subscriber: Subscriber): void {
    if (!subscriber.active) return;
    subscriber.active = false;
    subscriber.held = null;
    const { channel, connection } = subscriber;
    channel.subscribers.delete(subscriber);
    const at = connection.subscribers.indexOf(subscriber);
    if (at >= 0) connection.subscribers.splice(at, 1);
    if (channel.subscribers.size === 0 && !channel.permanent) this.unregister(channel);
    subscriber.ended();
  }

  /** Holds what reaches the subscriber until `release`: its snapshot is on its way. */
  hold(subscriber: Subscriber): void {
    if (subscriber.active) subscriber.held ??= [];
  }

  /** Sends `first` (the snapshot), then what was held meanwhile, in one write. */
  release(subscriber: Subscriber, first: Encoded | undefined): void {
    const held = subscriber.held ?? [];
    subscriber.held = null;
    if (!subscriber.active) return;
    const messages = first ? [first, ...held] : held;
    if (messages.length > 0) this.write(subscriber, messages);
  }

  /** Writes at once, held or not (a direct answer to the client's own message). */
  send(subscriber: Subscriber, message: Encoded): void {
    this.write(subscriber, [message]);
  }

  /**
   * A game event for its tournament's channels, through the tournament's lane (the live total
   * coalesced for a large audience, a `round_completed` grouped with the next step's event:
   * `TournamentLane`). Events reach each tournament's sockets in the order they came.
   */
  gameEvent(view: GameEventView): Promise<void> {
    if (!this.byTournament.has(view.tournamentId)) return Promise.resolve();
    return this.lane(view.tournamentId).event(view);
  }

  private lane(tournamentId: string): TournamentLane {
    let lane = this.lanes.get(tournamentId);
    if (!lane) {
      lane = new TournamentLane({
        limits: this.options.limits,
        audience: () => this.audience(tournamentId),
        broadcast: (views, spreadMs) => this.broadcast(views, spreadMs),
        onError: (error) => this.logger.error({ err: error }, 'a real-time broadcast failed'),
      });
      this.lanes.set(tournamentId, lane);
    }
    return lane;
  }

  /** Subscribers of a tournament's game, all channels (an O(channels) count). */
  private audience(tournamentId: string): number {
    let count = 0;
    for (const channel of this.byTournament.get(tournamentId) ?? []) {
      count += channel.subscribers.size;
    }
    return count;
  }

  /**
   * These events (one tournament's, in order) to each subscriber of its channels, encoded once
   * per channel, all of them in one write per socket.
   */
  private async broadcast(views: readonly GameEventView[], spreadMs: number): Promise<void> {
    const first = views[0];
    if (!first) return;
    const channels = this.byTournament.get(first.tournamentId);
    if (!channels) return;
    // A message for one player (a disqualification) goes to their own sockets only.
    const recipient = 'recipientUserId' in first ? first.recipientUserId : undefined;
    for (const channel of [...channels]) {
      if (channel.subscribers.size === 0 || !channel.gameEvent) continue;
      const targets =
        recipient === undefined
          ? [...channel.subscribers]
          : await this.socketsOf(recipient, channel.subscribers);
      if (targets.length === 0) continue;
      const encoded: Encoded[] = [];
      for (const view of views) {
        const one = await channel.gameEvent(view);
        if (one) encoded.push(one);
      }
      if (encoded.length === 0) continue;
      this.fanOut.push(targets, (subscriber) => this.deliver(subscriber, encoded), spreadMs);
    }
  }

  /**
   * The subscribers whose socket is signed in as `userId` (none for an empty id): known at once
   * for the sockets whose session is resolved, awaited for the others.
   */
  private async socketsOf(userId: string, subscribers: Set<Subscriber>): Promise<Subscriber[]> {
    if (!userId) return [];
    const found: Subscriber[] = [];
    const pending: Promise<void>[] = [];
    for (const subscriber of subscribers) {
      const owner = subscriber.connection.userOf?.();
      if (owner === undefined || typeof owner === 'string') {
        if (owner === userId) found.push(subscriber);
        continue;
      }
      pending.push(
        owner.then(
          (id) => {
            if (id === userId) found.push(subscriber);
          },
          () => undefined,
        ),
      );
    }
    if (pending.length > 0) await Promise.all(pending);
    return found;
  }

  async tournamentChange(change: TournamentChange, list: TournamentView[] | null): Promise<void> {
    const version = ++this.listVersion;
    for (const channel of [...this.listChannels]) {
      if (!channel.tournamentChange) continue;
      const { withList, newsOnly } = await channel.tournamentChange(change, list);
      if ((!withList && !newsOnly) || channel.subscribers.size === 0) continue;
      const deliver = (subscriber: Subscriber) => {
        // The two lanes may cross: a list older than one the socket already has is left out.
        if (withList && version > subscriber.listVersion) {
          subscriber.listVersion = version;
          this.deliver(subscriber, [withList]);
        } else if (newsOnly) {
          this.deliver(subscriber, [newsOnly]);
        }
      };
      const watchers: Subscriber[] = [];
      const others: Subscriber[] = [];
      for (const subscriber of channel.subscribers) {
        (subscriber.connection.watches(change.tournamentId) ? watchers : others).push(subscriber);
      }
      this.fanOut.push(watchers, deliver);
      this.newsFanOut.push(others, deliver, this.options.limits.tournamentNewsSpreadMs);
    }
  }

  /** Open sockets of one protocol, or of both (tests and diagnostics). */
  connectionCount(protocol?: RealtimeProtocol): number {
    if (!protocol) return this.connections.size;
    let count = 0;
    for (const connection of this.connections) if (connection.protocol === protocol) count += 1;
    return count;
  }

  /** Subscribers following a tournament's game, of one protocol or both. */
  subscriberCount(tournamentId: string, protocol?: RealtimeProtocol): number {
    let count = 0;
    for (const channel of this.byTournament.get(tournamentId) ?? []) {
      for (const subscriber of channel.subscribers) {
        if (!protocol || subscriber.connection.protocol === protocol) count += 1;
      }
    }
    return count;
  }

  /** Channels with subscribers, of a protocol's encoder or all (tests and diagnostics). */
  channelCount(encoder?: ProtocolEncoder): number {
    let count = 0;
    for (const channel of this.channels.values()) {
      if (channel.subscribers.size > 0 && (!encoder || channel.encoder === encoder)) count += 1;
    }
    return count;
  }

  /** Stops the heartbeat and drops what is queued; the protocols close their own sockets. */
  close(): void {
    clearInterval(this.heartbeat);
    this.fanOut.clear();
    this.newsFanOut.clear();
    this.heartbeatFanOut.clear();
    for (const lane of this.lanes.values()) lane.stop();
    this.lanes.clear();
  }

  /**
   * Pings every socket, both protocols, paced over a fifth of the interval: 10,000 pings in one
   * turn (and their 10,000 pongs right after) held up every vote arriving meanwhile. Each socket
   * is still pinged once an interval, at about the same point of it. One timer for all of them,
   * not one per socket.
   */
  beat(): void {
    this.heartbeatFanOut.push(
      [...this.connections],
      (connection) => this.beatOne(connection),
      this.options.limits.heartbeatMs * heartbeatSpreadShare,
    );
  }

  /** A socket that did not answer the previous ping is terminated; the others are pinged. */
  private beatOne(connection: Connection) {
    if (!this.connections.has(connection)) return; // closed since the beat began
    if (!connection.alive) {
      connection.socket.terminate();
      return;
    }
    connection.alive = false;
    connection.socket.ping();
  }

  /** One event's messages (or a group of events'), in one write unless held. */
  private deliver(subscriber: Subscriber, messages: readonly Encoded[]) {
    if (!subscriber.active) return; // unsubscribed while the broadcast was under way
    if (subscriber.held) {
      subscriber.held.push(...messages);
      if (subscriber.held.length > maxHeldMessages) this.drop(subscriber.connection);
      return;
    }
    this.write(subscriber, messages);
  }

  private write(subscriber: Subscriber, messages: readonly Encoded[]) {
    const { socket } = subscriber.connection;
    if (socket.readyState !== OPEN) return;
    if (socket.bufferedAmount > this.options.limits.maxBufferedBytes) {
      this.drop(subscriber.connection);
      return;
    }
    const { encoder } = subscriber.channel;
    const tcp = tcpSocketOf(socket);
    if (tcp) {
      // An event's frames (round_update + round_voting_started, a snapshot and what was held)
      // leave in one write.
      tcp.write(encoder.wire(subscriber, messages));
      return;
    }
    for (const text of encoder.texts(subscriber, messages)) socket.send(text);
  }

  /** A slow or stuck reader: its buffered data goes with it; a close frame would only queue. */
  private drop(connection: Connection) {
    this.options.metrics.slowConsumersDropped.inc({ protocol: connection.protocol });
    this.logger.info(
      { protocol: connection.protocol, bufferedBytes: connection.socket.bufferedAmount },
      'slow real-time subscriber dropped',
    );
    for (const subscriber of [...connection.subscribers]) this.leave(subscriber);
    connection.socket.terminate();
  }

  private closed(connection: Connection) {
    if (!this.connections.delete(connection)) return;
    this.options.metrics.connections.dec({ protocol: connection.protocol });
    for (const subscriber of [...connection.subscribers]) this.leave(subscriber);
  }

  private register<C extends Channel>(channel: C): C {
    this.channels.set(channel.key, channel);
    if (channel.tournamentId === null) {
      this.listChannels.add(channel);
    } else {
      let channels = this.byTournament.get(channel.tournamentId);
      if (!channels) this.byTournament.set(channel.tournamentId, (channels = new Set()));
      channels.add(channel);
    }
    return channel;
  }

  private unregister(channel: Channel) {
    if (this.channels.get(channel.key) !== channel) return;
    this.channels.delete(channel.key);
    if (channel.tournamentId === null) {
      this.listChannels.delete(channel);
      return;
    }
    const channels = this.byTournament.get(channel.tournamentId);
    channels?.delete(channel);
    if (channels?.size === 0) {
      this.byTournament.delete(channel.tournamentId);
      this.lanes.get(channel.tournamentId)?.stop();
      this.lanes.delete(channel.tournamentId);
    }
  }
}
