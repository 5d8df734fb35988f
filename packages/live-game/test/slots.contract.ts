import { randomUUID } from 'node:crypto';
import type { LiveStore } from '@underdog/store';
import {
  admitVote,
  allSlotKeys,
  applyVotes,
  createGame,
  gameKeys,
  joinGame,
  parseGameState,
  playerSlotKeys,
  readLiveGame,
  settleVote,
  slotKeys,
  slotOf,
  slotTag,
  votesKey,
  VOTE_SLOTS_FIELD,
} from '../src';

/**
 * A game's vote slots (docs/adr/0012) through the real key layout: a round's per-player vote
 * keys spread over K hash tags, every step of a vote (admission, settlement, application, the
 * resend's answer, the snapshot) finding the player's vote in the player's slot, and the K
 * tallies summing to every vote. Run at K = 1 (the layout of before: one tag, the game's) and
 * K = 4, on the memory twins (`scripts-memory.test.ts`) and the Lua (`scripts-redis.int.test.ts`).
 */
export function describeSlotsContract(
  name: string,
  makeFixture: () => Promise<{ store: LiveStore; cleanup(): Promise<void> }>,
  slots: number,
): void {
  describe(`vote slots contract (${name}, K = ${slots})`, () => {
    let store: LiveStore;
    let cleanup: () => Promise<void>;
    let tournament: string;

    beforeEach(async () => {
      ({ store, cleanup } = await makeFixture());
      tournament = `slots-${randomUUID()}`;
    });
    afterEach(async () => {
      await cleanup();
    });

    const users = Array.from({ length: 60 }, (_, i) => `user-${i}`);
    const images = ['round-1-image-0', 'round-1-image-1', 'round-1-image-2'];
    const imageOf = (i: number) => images[i % images.length]!;

    it('each slot has its own hash tag; with one slot it is the game’s, as before', () => {
      const game = gameKeys(tournament);
      const tags = allSlotKeys(tournament, slots).map((keys, slot) => {
        const tag = slotTag(tournament, slot, slots);
        for (const key of [
          keys.reserved(1),
          keys.admitted(1),
          keys.ballots(1),
          keys.tally(1),
          keys.voteIds(1),
        ]) {
          expect(key.match(/\{[^}]*\}/)?.[0]).toBe(tag);
        }
        return tag;
      });
      expect(new Set(tags).size).toBe(slots);
      if (slots === 1) {
        const one = slotKeys(tournament, 0, 1);
        expect([
          one.reserved(2),
          one.admitted(2),
          one.ballots(2),
          one.tally(2),
          one.voteIds(2),
        ]).toEqual([
          game.reserved(2),
          game.admitted(2),
          game.ballots(2),
          game.tally(2),
          game.voteIds(2),
        ]);
        expect(votesKey(tournament, 0, 1)).toBe(tournament);
      } else {
        expect(tags).not.toContain(`{${tournament}}`);
        expect(new Set(tags.map((_, slot) => votesKey(tournament, slot, slots))).size).toBe(slots);
      }
    });

    it('a player’s slot is stable and every slot gets players', () => {
      const bySlot = users.map((user) => slotOf(user, slots));
      expect(users.map((user) => slotOf(user, slots))).toEqual(bySlot);
      for (const slot of bySlot) expect(slot >= 0 && slot < slots).toBe(true);
      expect(new Set(bySlot).size).toBe(slots);
    });

    it('a round: admitted, settled and applied in the player’s slot, the K tallies summing to every vote', async () => {
      const keys = gameKeys(tournament);
      await store.hSet(keys.state, { tournamentStatus: 'upcoming' });
      for (const user of users) {
        await store.run(
          joinGame,
          [keys.state, keys.players, keys.devices, keys.offline, keys.alive],
          [user, JSON.stringify({ username: user, joinedAt: 1 }), '', 1, 'live', ''],
        );
      }
      expect(
        await store.run(createGame, [keys.state, keys.players, keys.alive], ['g1', 2, 3, slots]),
      ).toBe('CREATED:g1');
      expect(await store.hGet(keys.state, VOTE_SLOTS_FIELD)).toBe(String(slots));
      await store.hSet(keys.state, { phase: 'voting', round: '1', votingEndsAt: '1000' });
      const state = parseGameState(await store.hGetAll(keys.state));
      expect(state?.voteSlots).toBe(slots);

      // Admitted and settled by the gateway, each in the player's slot.
      for (const [i, user] of users.entries()) {
        const slot = playerSlotKeys(tournament, user, slots);
        expect(
          await store.run(
            admitVote,
            [
              keys.state,
              keys.players,
              keys.alive,
              keys.devices,
              slot.reserved(1),
              slot.ballots(1),
              slot.admitted(1),
            ],
            [user, 1, imageOf(i), 500, '', `v-${user}`],
          ),
        ).toBe('OK:1000:g1');
        expect(
          await store.run(
            settleVote,
            [keys.state, slot.voteIds(1), slot.ballots(1), slot.reserved(1), slot.admitted(1)],
            ['g1', 1, `v-${user}`, user, imageOf(i), '1'],
          ),
        ).toBe('ACKNOWLEDGED');
      }

      // Applied by the engine, one step per slot, each with only that slot's votes.
      const apply = async () => {
        const replies: string[] = [];
        for (let slot = 0; slot < slots; slot++) {
          const round = slotKeys(tournament, slot, slots);
          const mine = users.filter((user) => slotOf(user, slots) === slot);
          const args = mine.flatMap((user) => {
            const image = imageOf(users.indexOf(user));
            const ballot = { imageId: image, castAt: 500, voteId: `v-${user}`, username: user };
            return ['g1', `v-${user}`, user, 1, image, 500, JSON.stringify(ballot), 1];
          });
          replies.push(
            ...(await store.run(
              applyVotes,
              [
                keys.state,
                keys.alive,
                `${tournament}:mark`,
                round.ballots(1),
                round.tally(1),
                round.voteIds(1),
                round.reserved(1),
              ],
              [String(slot + 1), slot === 0 ? '' : String(slot), ...args],
            )),
          );
        }
        return replies;
      };
      expect(await apply()).toEqual(users.map(() => 'COUNTED'));
      expect(await apply()).toEqual(users.map(() => 'DUPLICATE'));

      // The close sums the K tallies: every vote once.
      const sum: Record<string, number> = {};
      for (const round of allSlotKeys(tournament, slots)) {
        for (const [image, count] of Object.entries(await store.hGetAll(round.tally(1)))) {
          sum[image] = (sum[image] ?? 0) + Number(count);
        }
      }
      expect(sum).toEqual({ 'round-1-image-0': 20, 'round-1-image-1': 20, 'round-1-image-2': 20 });
      expect(await store.hGet(keys.state, 'totalVotes')).toBe(String(users.length));

      // Each ballot in its player's slot and no other.
      for (const [slot, round] of allSlotKeys(tournament, slots).entries()) {
        const ballots = Object.keys(await store.hGetAll(round.ballots(1))).sort();
        expect(ballots).toEqual(users.filter((user) => slotOf(user, slots) === slot).sort());
      }

      // A resend is answered from the player's slot; the snapshot reads the vote there.
      const user = users[7]!;
      const slot = playerSlotKeys(tournament, user, slots);
      expect(
        await store.run(
          admitVote,
          [
            keys.state,
            keys.players,
            keys.alive,
            keys.devices,
            slot.reserved(1),
            slot.ballots(1),
            slot.admitted(1),
          ],
          [user, 1, imageOf(7), 900, '', 'v-resend'],
        ),
      ).toBe('COUNTED');
      const snapshot = await readLiveGame(store, tournament, user);
      expect(snapshot.player?.voteImageId).toBe(imageOf(7));
    });
  });
}
