import type { Registry } from '@underdog/kit';
import { Counter, Gauge } from 'prom-client';

export type RealtimeProtocol = 'ws' | 'graphql-ws';

/** The real-time edges' metrics; names are fixed (the dashboard uses them). */
export class RealtimeMetrics {
  readonly connections: Gauge<'protocol'>;
  readonly slowConsumersDropped: Counter<'protocol'>;

  constructor(registry: Registry) {
    this.connections = new Gauge({
      name: 'underdog_websocket_connections',
      help: 'Open WebSocket connections, by protocol (ws: /ws, graphql-ws: /graphql)',
      labelNames: ['protocol'],
      registers: [registry],
    });
    this.slowConsumersDropped = new Counter({
      name: 'underdog_websocket_slow_consumers_dropped_total',
      help: 'Connections dropped because their unsent data passed the bound, by protocol',
      labelNames: ['protocol'],
      registers: [registry],
    });
    for (const protocol of ['ws', 'graphql-ws'] as const) {
      this.connections.set({ protocol }, 0);
      this.slowConsumersDropped.inc({ protocol }, 0);
    }
  }
}
