import type { Registry } from '@underdog/kit';
import { Counter, Gauge, Histogram } from 'prom-client';

/** The engine's metrics (names are the dashboard's). */
export function engineMetrics(registry: Registry) {
  return {
    liveGames: new Gauge({
      name: 'underdog_live_games',
      help: 'Games this replica is running',
      registers: [registry],
    }),
    votesCounted: new Counter({
      name: 'underdog_votes_counted_total',
      help: 'Votes applied to a round tally (offline choices included)',
      registers: [registry],
    }),
    fenced: new Counter({
      name: 'underdog_game_fenced_total',
      help: 'Writes of a game refused to this replica because another holds its lease: a renewal (lease) or a step with an outdated fencing token (step)',
      labelNames: ['at'],
      registers: [registry],
    }),
    roundDuration: new Histogram({
      name: 'underdog_round_duration_seconds',
      help: 'From voting start to the results published',
      buckets: [5, 10, 15, 20, 30, 45, 60, 90, 120, 180],
      registers: [registry],
    }),
  };
}

export type EngineMetrics = ReturnType<typeof engineMetrics>;
