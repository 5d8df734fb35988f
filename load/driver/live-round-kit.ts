// What the engine benches (`apply-bench.ts`, `round-bench.ts`) share: the votes they produce
// into `game.votes` as the gateway produces them, and small waits on fresh servers.
import type { Redis } from 'ioredis';
import type { OutgoingMessage } from '@underdog/bus';
import { GameVoteEventSchema, create, encodeEvent, timestampFromDate } from '@underdog/proto';
import { roundImages } from '@underdog/rules';
import { slotOf, votesKey } from '../../packages/live-game/src';

/** Votes per produce call (one record batch under the broker's 1 MB default); the gateway produces
 * one vote a call, a bench only needs the volume. */
export const PRODUCE_CHUNK = 1_000;

/** Bench player n's user id: `p<n>`. */
export const benchUserId = (n: number): string => `p${n}`;

/** The image bench player n votes for in `round`: the round's images in turn. */
export function benchImageOf(round: number, n: number): string {
  const images = roundImages(round);
  return images[n % images.length]!.id;
}

/** Bench player n's vote id in a tournament. */
export const benchVoteId = (tournamentId: string, n: number): string => `${tournamentId}-v${n}`;

/**
 * Bench player n's vote of `round`, encoded as the gateway produces it (`gateway/src/games.ts`:
 * the tournament id as key, the vote id as event id). When a tournament's votes are keyed by
 * slot (issue 35, point 3), this follows the gateway's key.
 */
export function benchVote(
  vote: { tournamentId: string; gameId: string; round: number; castAt: Date; slots?: number },
  n: number,
): OutgoingMessage {
  const userId = benchUserId(n);
  const slots = vote.slots ?? 1;
  // Keyed as the gateway keys it: by the player's slot when the game has several (ADR 12).
  const key = votesKey(vote.tournamentId, slotOf(userId, slots), slots);
  const voteId = benchVoteId(vote.tournamentId, n);
  const event = create(GameVoteEventSchema, {
    tournamentId: vote.tournamentId,
    kind: {
      case: 'voteCast',
      value: {
        voteId,
        gameId: vote.gameId,
        userId,
        username: userId,
        roundNumber: vote.round,
        imageId: benchImageOf(vote.round, n),
        castAt: timestampFromDate(vote.castAt),
        deviceId: `device-${userId}`,
      },
    },
  });
  return encodeEvent(GameVoteEventSchema, event, { key, id: voteId });
}

/** A numeric field of Redis's `INFO` text (0 when absent). */
export function infoNumber(info: string, name: string): number {
  return Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
}

/** Redis's own CPU seconds so far (`INFO cpu`: user + system of the main thread and children). */
export async function redisCpuSeconds(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  return infoNumber(info, 'used_cpu_user') + infoNumber(info, 'used_cpu_sys');
}

/** Bytes Redis holds for data and overhead (`INFO memory`'s `used_memory`). */
export async function redisUsedMemory(admin: Redis): Promise<number> {
  return infoNumber(await admin.info('memory'), 'used_memory');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fresh topic's partitions have no leader for a moment: asks again for up to 15 s. */
export async function untilAnswered<T>(ask: () => Promise<T>): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if (Date.now() > until) throw error;
      await sleep(250);
    }
  }
}
