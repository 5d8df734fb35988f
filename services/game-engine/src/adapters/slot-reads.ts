/**
 * A round's reads over a game's K vote slots (docs/adr/0012): each slot's keys under its own
 * hash tag, read slot by slot and combined. `LiveGames` answers with these.
 */
import { allSlotKeys, slotKeys, slotOf, type StoredBallot } from '@underdog/live-game';
import type { LiveStore } from '@underdog/store';

/**
 * The image each of `userIds` voted in `round` (HMGET in their slots), for the ones who voted:
 * a chunk's ballots, without reading the round's whole ballots hash.
 */
export async function ballotImagesOf(
  store: LiveStore,
  tournamentId: string,
  round: number,
  voteSlots: number,
  userIds: readonly string[],
): Promise<Map<string, string>> {
  const bySlot = new Map<number, string[]>();
  for (const userId of userIds) {
    const slot = slotOf(userId, voteSlots);
    const users = bySlot.get(slot);
    if (users) users.push(userId);
    else bySlot.set(slot, [userId]);
  }
  const images = new Map<string, string>();
  await Promise.all(
    [...bySlot].map(async ([slot, users]) => {
      const key = slotKeys(tournamentId, slot, voteSlots).ballots(round);
      const ballots = await store.hGetMany(key, users);
      ballots.forEach((json, index) => {
        if (json !== null) images.set(users[index]!, (JSON.parse(json) as StoredBallot).imageId);
      });
    }),
  );
  return images;
}

/** Round `round`'s votes per image, summed over the game's K slots' tallies (K small reads). */
export async function tallies(
  store: LiveStore,
  tournamentId: string,
  round: number,
  voteSlots: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const slots = await Promise.all(
    allSlotKeys(tournamentId, voteSlots).map((slot) => store.hGetAll(slot.tally(round))),
  );
  for (const tally of slots) {
    for (const [imageId, count] of Object.entries(tally)) {
      counts.set(imageId, (counts.get(imageId) ?? 0) + Number(count));
    }
  }
  return counts;
}

/**
 * Where round N's acknowledged votes end on each `game.votes` partition, over the game's vote
 * slots (`acknowledged` in @underdog/live-game, kept by the gateways' settlements): the
 * highest acknowledged offset plus one, or `unknown` when a vote was acknowledged without its
 * offset. A partition that is absent had no vote acknowledged.
 */
export async function acknowledgedEnds(
  store: LiveStore,
  tournamentId: string,
  round: number,
  voteSlots: number,
): Promise<Map<number, bigint | 'unknown'>> {
  const ends = new Map<number, bigint | 'unknown'>();
  const slots = await Promise.all(
    allSlotKeys(tournamentId, voteSlots).map((slot) => store.hGetAll(slot.acknowledged(round))),
  );
  for (const [field, value] of slots.flatMap((hash) => Object.entries(hash))) {
    const partition = Number(field);
    const seen = ends.get(partition);
    if (value === 'unknown' || seen === 'unknown') ends.set(partition, 'unknown');
    else if (seen === undefined || BigInt(value) + 1n > seen) {
      ends.set(partition, BigInt(value) + 1n);
    }
  }
  return ends;
}

/**
 * How many players of round N are `held` over the game's vote slots, their vote not counted: a
 * vote cast in time whose produce failed, its resend still to come (`held` in @underdog/live-game,
 * kept by the gateways' settlements). A held player with a ballot is not waited for, however the
 * ballot came (a resend the engine counted before its gateway settled it, a gateway that died
 * after). Few or none but in an outage: read whole.
 */
export async function heldVotes(
  store: LiveStore,
  tournamentId: string,
  round: number,
  voteSlots: number,
): Promise<number> {
  const counts = await Promise.all(
    allSlotKeys(tournamentId, voteSlots).map(async (slot) => {
      const users = Object.keys(await store.hGetAll(slot.held(round)));
      if (users.length === 0) return 0;
      const ballots = await store.hGetMany(slot.ballots(round), users);
      return ballots.filter((ballot) => ballot === null).length;
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
