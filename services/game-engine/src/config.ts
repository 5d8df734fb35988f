import { parseEnv, type Environment } from '@underdog/kit';
import { MAX_VOTE_SLOTS } from '@underdog/live-game';
import { RECORDS_DELAY_MS, RESULTS_MS } from '@underdog/rules';
import { z } from 'zod';
import { END_RECORDS_WAIT_MS } from './domain/timings';

const ms = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);

/** The game-engine service's own variables (the common ones are read by @underdog/platform). */
export function gameEngineConfig(env: Environment) {
  return parseEnv(
    {
      GAME_LEASE_TTL_MS: ms(1000, 200),
      GAME_SWEEP_MS: ms(200, 20),
      // How often the votes consumer compares its position with the applied marks in Redis.
      GAME_VOTES_MARK_CHECK_MS: ms(1000, 20),
      // How long a lagging votes partition's applied mark may stand still while a close waits on
      // it before the close applies the partition's votes itself (its consumer silent).
      GAME_VOTES_STAND_STILL_MS: ms(500, 100),
      // How long a round's capture waits for a votes partition's leader (its end) before it
      // takes where the round's acknowledged votes end (a leader election under way).
      GAME_CAPTURE_LEADER_WAIT_MS: ms(1000, 0),
      // How long past its grace a round's close may wait for votes cast in time that could not
      // be recorded yet (a broker without a leader), and how long it still waits once every
      // partition has a leader again for votes whose produce was in flight (ADR 9, 7). 2 s: with
      // the capture (which does not ask a leader the hold found missing again) and the tally,
      // the results stay within the grace + 4 s that issue 38 bounds a close by; votes still
      // unrecorded then are refused, never counted.
      GAME_CLOSE_HOLD_MS: ms(2000, 0),
      GAME_CLOSE_HOLD_SETTLE_MS: ms(3000, 0),
      // The votes consumer's group session: how long a crashed engine keeps its votes partitions.
      GAME_KAFKA_SESSION_TIMEOUT_MS: ms(10_000, 1000),
      GAME_KAFKA_HEARTBEAT_MS: ms(2000, 100),
      // Put before the engine's consumer group names: tests sharing one broker keep theirs apart.
      GAME_KAFKA_GROUP_PREFIX: z.string().default(''),
      GAME_RESULTS_SECONDS: z.coerce
        .number()
        .int()
        .min(1)
        .max(60)
        .default(RESULTS_MS / 1000),
      // A new game's vote slots K (docs/adr/0012): its votes' keys under K hash tags and on up to
      // K partitions of game.votes. 1 is the layout of one tag and one partition a game.
      GAME_VOTE_SLOTS: z.coerce.number().int().min(1).max(MAX_VOTE_SLOTS).default(1),
      // With a value, a game gets one more slot per that many registered players; 0: off.
      GAME_PLAYERS_PER_VOTE_SLOT: z.coerce.number().int().min(0).default(0),
      // How long a record write waits after it is asked for (GameTimings.recordsDelayMs).
      GAME_RECORDS_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(RECORDS_DELAY_MS),
      // How long the end waits for the records before it announces game_ended anyway
      // (GameTimings.endRecordsWaitMs).
      GAME_END_RECORDS_WAIT_MS: ms(END_RECORDS_WAIT_MS, 0),
    },
    env,
  );
}

export type GameEngineConfig = ReturnType<typeof gameEngineConfig>;
