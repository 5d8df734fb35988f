import { randomUUID } from 'node:crypto';
import type { LiveStore } from '@underdog/store';
import { admitVote, applyVote, settleVote } from '../src';
import { seed, snapshot, type ScriptsFixture } from './scripts.contract';

/**
 * A vote cast in time that could not be recorded (docs/adr/0009, 7), on the Lua and on its twin:
 * `settleVote` holds it (`rN:held`), `admitVote` admits its resend past the deadline as of its
 * first cast until the round begins closing, the engine counts it (not `LATE`), and an
 * acknowledgement takes the player out of `held`. Run by `scripts-memory.test.ts` and
 * `scripts-redis.int.test.ts`.
 */
export function describeHeldVotesContract(
  name: string,
  makeFixture: () => Promise<ScriptsFixture>,
): void {
  describe(`held votes contract (${name})`, () => {
    let fixture: ScriptsFixture;
    let store: LiveStore;
    let k: ReturnType<typeof names>;

    function names() {
      const ns = `held:${randomUUID()}`;
      const key = (role: string) => `${ns}:${role}`;
      return {
        state: key('state'),
        players: key('players'),
        alive: key('alive'),
        devices: key('devices'),
        reserved: key('reserved:1'),
        admitted: key('admitted:1'),
        ballots: key('ballots:1'),
        tally: key('tally:1'),
        voteIds: key('voteIds:1'),
        acknowledged: key('acknowledged:1'),
        held: key('held:1'),
      };
    }

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
      k = names();
      await seed(store, {
        hashes: {
          [k.state]: { gameId: 'g1', phase: 'voting', round: '1', votingEndsAt: '1000' },
          [k.players]: { u1: 'p', u2: 'p' },
        },
        sets: { [k.alive]: ['u1', 'u2'] },
      });
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const image = 'round-1-image-2';
    const admit = (now: number, voteId: string, user = 'u1', picked = image) =>
      store.run(
        admitVote,
        [k.state, k.players, k.alive, k.devices, k.reserved, k.ballots, k.admitted, k.held],
        [user, 1, picked, now, '', voteId],
      );
    const settle = (voteId: string, produced: '0' | '1', user = 'u1') =>
      store.run(
        settleVote,
        [k.state, k.voteIds, k.ballots, k.reserved, k.admitted, k.acknowledged, k.held],
        ['g1', '1', voteId, user, image, produced, ...(produced === '1' ? ['0', '7'] : [])],
      );
    const apply = (voteId: string, castAt: number, user = 'u1') =>
      store.run(
        applyVote,
        [k.state, k.alive, k.ballots, k.tally, k.voteIds, k.reserved],
        ['g1', voteId, user, 1, image, castAt, JSON.stringify({ imageId: image, castAt, voteId })],
      );
    const held = async () => (await snapshot(store, { hashes: [k.held] }))[k.held];
    const admitted = async () => (await snapshot(store, { hashes: [k.admitted] }))[k.admitted];
    const setState = (fields: Record<string, string>) => store.hSet(k.state, fields);

    it('WITHDRAWN holds a vote cast in time that was not produced; its resend past the deadline is admitted as of its first cast, and counts', async () => {
      expect(await admit(900, 'v1')).toBe('OK:1000:g1');
      expect(await settle('v1', '0')).toBe('WITHDRAWN');
      expect(await held()).toEqual({ u1: `${image}|900` });
      // The deadline passed, the round not closing yet (the grace, or a held close).
      await setState({ phase: 'voting_ended' });
      expect(await admit(1500, 'v2')).toBe('HELD:900:1000:g1');
      expect(await admitted()).toEqual({ u1: 'v2|900|P' });
      // Produced and settled before the close: acknowledged, no longer held.
      expect(await settle('v2', '1')).toBe('ACKNOWLEDGED');
      expect(await held()).toEqual({});
      // The engine applies it as cast at 900: counted, not LATE.
      expect(await apply('v2', 900)).toBe('COUNTED');
    });

    it('COUNTED, when the engine applied the resend before its settlement, takes its player out of held too', async () => {
      await admit(900, 'v1');
      await settle('v1', '0');
      await setState({ phase: 'voting_ended' });
      expect(await admit(1500, 'v2')).toBe('HELD:900:1000:g1');
      expect(await apply('v2', 900)).toBe('COUNTED');
      expect(await settle('v2', '1')).toBe('COUNTED');
      expect(await held()).toEqual({});
    });

    it('a held resend that fails again is held again, still as of its first cast', async () => {
      await admit(900, 'v1');
      await settle('v1', '0');
      await setState({ phase: 'voting_ended' });
      expect(await admit(1500, 'v2')).toBe('HELD:900:1000:g1');
      expect(await settle('v2', '0')).toBe('WITHDRAWN');
      expect(await held()).toEqual({ u1: `${image}|900` });
      expect(await admit(2500, 'v3')).toBe('HELD:900:1000:g1');
    });

    it('VOTING_CLOSED past the deadline for another image, for a player not held, and once the round began closing', async () => {
      await admit(900, 'v1');
      await settle('v1', '0');
      await setState({ phase: 'voting_ended' });
      expect(await admit(1500, 'v2', 'u1', 'round-1-image-3')).toBe('VOTING_CLOSED');
      expect(await admit(1500, 'v3', 'u2')).toBe('VOTING_CLOSED');
      await setState({ votesEndOffset: 'closing' });
      expect(await admit(1500, 'v4')).toBe('VOTING_CLOSED');
      expect(await admitted()).toEqual({});
    });

    it('holds nothing for a vote withdrawn once the round began closing, or produced late', async () => {
      await admit(900, 'v1');
      await admit(950, 'v9', 'u2');
      await setState({ phase: 'voting_ended', votesEndOffset: 'closing' });
      expect(await settle('v1', '0')).toBe('WITHDRAWN');
      expect(await settle('v9', '1', 'u2')).toBe('WITHDRAWN');
      expect(await held()).toEqual({});
    });

    it('before the deadline a held player votes as anyone does (any image, at its own time); an acknowledgement ends the hold', async () => {
      await admit(400, 'v1');
      await settle('v1', '0');
      expect(await held()).toEqual({ u1: `${image}|400` });
      expect(await admit(600, 'v2', 'u1', 'round-1-image-3')).toBe('OK:1000:g1');
      expect(await admitted()).toEqual({ u1: 'v2|600|P' });
      expect(await settle('v2', '1')).toBe('ACKNOWLEDGED');
      expect(await held()).toEqual({});
    });
  });
}
