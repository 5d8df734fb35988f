import { useApolloClient } from '@apollo/client';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { ServerTimeDocument } from '../../../gql/operations';

/** Spec §9: the server time is refetched every 5 minutes. */
export const TIME_SYNC_MS = 5 * 60_000;

export interface ServerClock {
  /** Server time minus local time, in ms. */
  offsetMs: number;
}

export const ServerClockContext = createContext<ServerClock>({ offsetMs: 0 });

/** The offset of a server reading taken between two local instants (midpoint estimate). */
export function offsetFrom(serverTimeIso: string, sentAt: number, receivedAt: number): number {
  const server = Date.parse(serverTimeIso);
  if (Number.isNaN(server)) return 0;
  return server - (sentAt + receivedAt) / 2;
}

/** Keeps the offset between this browser's clock and the server's, refreshed every 5 minutes. */
export function ServerClockProvider({ children }: { children: ReactNode }) {
  const client = useApolloClient();
  const [offsetMs, setOffsetMs] = useState(0);
  useEffect(() => {
    let cancelled = false;
    const sync = async () => {
      const sentAt = Date.now();
      try {
        const { data } = await client.query({
          query: ServerTimeDocument,
          fetchPolicy: 'network-only',
        });
        if (!cancelled) setOffsetMs(offsetFrom(data.serverTime, sentAt, Date.now()));
      } catch {
        // Keep the last offset; the next sync tries again.
      }
    };
    void sync();
    const timer = setInterval(() => void sync(), TIME_SYNC_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [client]);
  return <ServerClockContext.Provider value={{ offsetMs }}>{children}</ServerClockContext.Provider>;
}

/** The server's current time (ms since epoch), re-rendering every `tickMs`. */
export function useServerNow(tickMs = 1_000): number {
  const { offsetMs } = useContext(ServerClockContext);
  const [localNow, setLocalNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setLocalNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return localNow + offsetMs;
}

/** Milliseconds left until `targetMs` on the server's clock, never below 0. */
export function useCountdown(targetMs: number, tickMs = 1_000): number {
  return Math.max(0, targetMs - useServerNow(tickMs));
}
