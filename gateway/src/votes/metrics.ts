import type { Registry } from '@underdog/kit';
import { Counter, Histogram, type Metric } from 'prom-client';

function metric<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** A step of an admitted vote, timed on its own. */
export type VoteStage = 'actor' | 'admit' | 'produce';

export type VoteMetrics = ReturnType<typeof voteMetrics>;

export function voteMetrics(registry: Registry) {
  return {
    accepted: metric(
      registry,
      'underdog_votes_accepted_total',
      () =>
        new Counter({
          name: 'underdog_votes_accepted_total',
          help: 'Votes admitted, produced to game.votes and acknowledged',
          registers: [registry],
        }),
    ),
    refused: metric(
      registry,
      'underdog_votes_refused_total',
      () =>
        new Counter({
          name: 'underdog_votes_refused_total',
          help: 'Votes refused, by reason',
          labelNames: ['reason'],
          registers: [registry],
        }),
    ),
    ack: metric(
      registry,
      'underdog_vote_ack_seconds',
      () =>
        new Histogram({
          name: 'underdog_vote_ack_seconds',
          help: 'From a vote request to its answer (acknowledgement or refusal)',
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
          registers: [registry],
        }),
    ),
    stage: metric(
      registry,
      'underdog_vote_stage_seconds',
      () =>
        new Histogram({
          name: 'underdog_vote_stage_seconds',
          help: 'One step of an admitted vote: the session actor, the admission, the produce',
          labelNames: ['stage'],
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
          registers: [registry],
        }),
    ),
  };
}
