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
    votesWait: new Histogram({
      name: 'underdog_votes_wait_seconds',
      help: "How long a round's close waited for its acknowledged votes to be applied, from when the runner found them lagging after the capture (0: applied already)",
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    }),
    votesParked: new Counter({
      name: 'underdog_votes_parked_total',
      help: '`game.votes` messages the engine can never apply (unreadable, an invalid vote, a vote the apply script fails on), parked in `game.votes.dead-letter` instead of stalling their partition',
      labelNames: ['reason'],
      registers: [registry],
    }),
    votesReadBehind: new Counter({
      name: 'underdog_votes_read_behind_total',
      help: "Reads of a game.votes partition by a round's close, outside the votes consumer's group, because the partition's applied mark stood still while the close waited (its consumer killed or frozen, the group not yet handing it over)",
      registers: [registry],
    }),
    roundsAwaitingVotes: new Gauge({
      name: 'underdog_rounds_awaiting_votes',
      help: 'Rounds on this replica whose close is waiting for acknowledged votes to be applied',
      registers: [registry],
    }),
  };
}

export type EngineMetrics = ReturnType<typeof engineMetrics>;
