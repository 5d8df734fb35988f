import { parseEnv, type Environment } from '@underdog/kit';
import { z } from 'zod';

const shape = {
  TOURNAMENT_SCHEDULER_POLL_MS: z.coerce.number().int().min(10).max(1_000).default(250),
  TOURNAMENT_OUTBOX_RETRY_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  FAIR_PLAY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
};

/** The tournament service's own variables (the common ones are read by @underdog/platform). */
export function tournamentConfig(env: Environment) {
  const parsed = parseEnv(shape, env);
  return {
    /** How often the scheduler looks for tournaments to start (≤ 1 s keeps the start on time). */
    schedulerPollMs: parsed.TOURNAMENT_SCHEDULER_POLL_MS,
    /** How long a lifecycle event may stay unpublished before the sweep sends it again. */
    outboxRetryAfterMs: parsed.TOURNAMENT_OUTBOX_RETRY_MS,
    /** How long fair-play signals are kept: days after their tournament finished (README). */
    fairPlayRetentionDays: parsed.FAIR_PLAY_RETENTION_DAYS,
  };
}

export type TournamentConfig = ReturnType<typeof tournamentConfig>;
