import { useSyncExternalStore } from 'react';

/**
 * Whether the graphql-ws socket is open; `reconnecting` once it has been open and dropped;
 * `full` while the gateway turns new sockets away (close 1013) and the app waits its turn.
 */
export type SocketStatus = 'connecting' | 'connected' | 'reconnecting' | 'full';

let status: SocketStatus = 'connecting';
/** With `full`: when (epoch ms) the next attempt is made. */
let retryAt = 0;
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

export function setSocketStatus(next: SocketStatus): void {
  if (next === status) return;
  status = next;
  notify();
}

/** The gateway is full: the app is in the waiting room until its next attempt at `at`. */
export function setWaitingRoom(at: number): void {
  status = 'full';
  retryAt = at;
  notify();
}

export function socketStatus(): SocketStatus {
  return status;
}

/** With status `full`: when (epoch ms) the app tries again. */
export function waitingRoomRetryAt(): number {
  return retryAt;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Re-renders when the socket connects, drops or is turned away. */
export function useSocketStatus(): SocketStatus {
  return useSyncExternalStore(subscribe, socketStatus, socketStatus);
}

/** When (epoch ms) the waiting room's next attempt is; re-renders when it is set again. */
export function useWaitingRoomRetryAt(): number {
  return useSyncExternalStore(subscribe, waitingRoomRetryAt, waitingRoomRetryAt);
}
