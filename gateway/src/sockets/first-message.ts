import { systemClock, type Clock } from '@underdog/kit';
import type { WebSocket } from 'ws';

/** How often the sockets still silent are looked at, at most. */
const sweepMs = 500;

/**
 * Closes the sockets that stay silent too long after they open (a graphql-ws socket until its
 * `connection_init`, a `/ws` socket until its first message): an idle socket holds a place in
 * the room and costs memory while doing nothing a client needs. One sweep for every socket, no
 * timer per socket; the sockets are kept in the order they opened, so a sweep stops at the first
 * one still in time. `close` is how the endpoint says goodbye (its own code and reason).
 */
export class FirstMessageDeadline {
  private readonly waiting = new Map<WebSocket, number>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    close: (socket: WebSocket) => void,
    private readonly clock: Clock = systemClock,
  ) {
    this.sweep = setInterval(
      () => {
        const now = this.clock.now().getTime();
        for (const [socket, openedAt] of this.waiting) {
          if (now - openedAt < this.timeoutMs) break;
          this.waiting.delete(socket);
          close(socket);
        }
      },
      Math.min(sweepMs, Math.max(50, Math.floor(timeoutMs / 4))),
    );
    this.sweep.unref();
  }

  /** A socket just opened: its time starts now. */
  watch(socket: WebSocket): void {
    this.waiting.set(socket, this.clock.now().getTime());
    socket.once('close', () => this.waiting.delete(socket));
  }

  /** The socket spoke in time. */
  met(socket: WebSocket): void {
    this.waiting.delete(socket);
  }

  stop(): void {
    clearInterval(this.sweep);
    this.waiting.clear();
  }
}
