import { useSyncExternalStore } from 'react';

/** Whether the graphql-ws socket is open; `reconnecting` once it has been open and dropped. */
export type SocketStatus = 'connecting' | 'connected' | 'reconnecting';

let status: SocketStatus = 'connecting';
const listeners = new Set<() => void>();

export function setSocketStatus(next: SocketStatus): void {
  if (next === status) return;
  status = next;
  for (const listener of listeners) listener();
}

export function socketStatus(): SocketStatus {
  return status;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Re-renders when the socket connects or drops. */
export function useSocketStatus(): SocketStatus {
  return useSyncExternalStore(subscribe, socketStatus, socketStatus);
}
