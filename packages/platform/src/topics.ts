import type { TopicSpec } from '@underdog/bus';

/**
 * Every Kafka topic, its partition count and its key. docs/events.md is the human-readable copy
 * of this table; change both together. Topics keyed by tournament id share a partition count so
 * that `tournament.lifecycle` and `game.votes` are co-partitioned (one engine owns both halves).
 */
export const topics = {
  tournamentLifecycle: { name: 'tournament.lifecycle', partitions: 12 },
  gameVotes: { name: 'game.votes', partitions: 12 },
  gameEvents: { name: 'game.events', partitions: 12 },
  playerOutcomes: { name: 'player.outcomes', partitions: 6 },
  userEvents: { name: 'user.events', partitions: 6 },
  fairPlaySignals: { name: 'fair-play.signals', partitions: 6 },
  adminActions: { name: 'admin.actions', partitions: 3 },
  sessionRevocations: { name: 'session.revocations', partitions: 3 },
  notificationRequests: { name: 'notification.requests', partitions: 6 },
  adsCatalog: { name: 'ads.catalog', partitions: 3, compacted: true },
  /** `game.votes` messages the engine can never apply (poison), parked instead of stalling. */
  gameVotesDeadLetter: { name: 'game.votes.dead-letter', partitions: 3 },
} as const satisfies Record<string, TopicSpec>;

export const allTopics: TopicSpec[] = Object.values(topics);
