import { randomUUID } from 'node:crypto';
import type { LiveStore } from '@underdog/store';
import { disqualifyParticipant, type StoredDisqualification } from '../src';

/**
 * `disqualifyParticipant`'s Lua and its TypeScript twin held to one contract (issue 28): every
 * reply, the round a mark names from each phase, and what it leaves in the disqualified hash.
 * Run on the memory store (`disqualification-memory.test.ts`) and on real Redis
 * (`disqualification-redis.int.test.ts`); the JSON marks are compared parsed (cjson and
 * JSON.stringify order keys differently).
 */
export interface DisqualificationFixture {
  store: LiveStore;
  cleanup(): Promise<void>;
}

type Reply = { outcome: string; mark?: StoredDisqualification };

function parse(reply: string): Reply {
  const [outcome = '', json] = reply.split(/:(.*)/s);
  return json === undefined
    ? { outcome }
    : { outcome, mark: JSON.parse(json) as StoredDisqualification };
}

export function describeDisqualificationContract(
  name: string,
  makeFixture: () => Promise<DisqualificationFixture>,
): void {
  describe(`disqualifyParticipant (${name})`, () => {
    let fixture: DisqualificationFixture;
    beforeEach(async () => {
      fixture = await makeFixture();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    /** A game in this state with ann as a participant; runs the script for `user`. */
    async function run(state: Record<string, string> | undefined, user = 'ann', reason = 'ring') {
      const ns = `dq:${randomUUID()}`;
      const keys = [`${ns}:state`, `${ns}:players`, `${ns}:disqualified`];
      if (state) await fixture.store.hSet(keys[0]!, state);
      await fixture.store.hSet(keys[1]!, { ann: '{"username":"ann","joinedAt":1}' });
      const reply = parse(
        await fixture.store.run(disqualifyParticipant, keys, [
          user,
          reason,
          1_700_000_000_123,
          'root',
        ]),
      );
      const stored = await fixture.store.hGetAll(keys[2]!);
      return {
        reply,
        stored,
        run: (again: string) =>
          fixture.store.run(disqualifyParticipant, keys, ['ann', again, 1, 'root']),
      };
    }

    const game = (phase: string, round: number, extra: Record<string, string> = {}) => ({
      tournamentStatus: 'live',
      gameId: 'g1',
      phase,
      round: String(round),
      totalRounds: '17',
      ...extra,
    });
    const mark = (round: number): StoredDisqualification => ({
      reason: 'ring',
      at: 1_700_000_000_123,
      by: 'root',
      round,
    });

    it.each([
      ['an upcoming tournament (no game)', 1, { tournamentStatus: 'upcoming' }],
      ['a waiting game', 1, game('waiting', 0)],
      ["round 3's voting", 3, game('voting', 3)],
      ["round 3's grace", 3, game('voting_ended', 3)],
      ["round 3's tally", 4, game('tallying', 3)],
      ["round 3's results", 4, game('results', 3)],
      ['an advertisement after round 3', 4, game('advertisement', 3)],
    ] as const)('during %s the mark names round %i', async (_what, round, state) => {
      const { reply, stored } = await run(state);
      expect(reply).toEqual({ outcome: 'NEW', mark: mark(round) });
      expect(JSON.parse(stored.ann!)).toEqual(mark(round));
    });

    it('answers the first mark again, unchanged, when disqualified twice', async () => {
      const first = await run(game('voting', 2));
      const again = parse(await first.run('another reason'));
      expect(again).toEqual({ outcome: 'ALREADY', mark: mark(2) });
    });

    it.each([
      ['no tournament', undefined, 'ann', 'NO_TOURNAMENT'],
      ['not a participant', game('voting', 1), 'bob', 'NOT_PARTICIPANT'],
      ['a finished game', game('finished', 5), 'ann', 'FINISHED'],
      ['the last round resolved', game('results', 17), 'ann', 'ENDING'],
      ['the end decided', game('results', 4, { decidedBy: 'last_standing' }), 'ann', 'ENDING'],
    ])('refuses %s', async (_what, state, user, outcome) => {
      const { reply, stored } = await run(state, user);
      expect(reply).toEqual({ outcome });
      expect(stored).toEqual({});
    });
  });
}
