import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  LiveStoreError,
  MEMBERS_PER_STEP,
  type LiveStore,
  type ScriptReply,
  type StoreScript,
} from '@underdog/store';
import {
  acquireLease,
  admitVote,
  advanceGame,
  applyVote,
  applyVotes,
  createGame,
  eliminate,
  eliminatePlayers,
  gameKeys,
  joinGame,
  raiseMark,
  releaseLease,
  releaseVote,
  settleVote,
  VOTES_PER_APPLY,
} from '../src';

/**
 * The game's Lua scripts and their TypeScript twins, held to one contract (issue 27 point 2):
 * every reply code of every script, with the keys it leaves behind. Run on the memory store
 * (`scripts-memory.test.ts`, the twins) and on real Redis (`scripts-redis.int.test.ts`, the Lua),
 * so a twin that drifts from its Lua fails one of the two runs. Each case writes under its own
 * namespace, so cases never see each other's keys.
 */
export interface ScriptsFixture {
  store: LiveStore;
  cleanup(): Promise<void>;
}

type Hashes = Record<string, Record<string, string>>;
interface Seed {
  hashes?: Hashes;
  sets?: Record<string, string[]>;
  strings?: Record<string, string>;
}

/** What a key holds, read back through the store's commands, in a form `toEqual` compares. */
export async function snapshot(
  store: LiveStore,
  keys: { hashes?: string[]; sets?: string[]; strings?: string[] },
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of keys.hashes ?? []) out[key] = await store.hGetAll(key);
  for (const key of keys.sets ?? []) out[key] = (await store.sMembers(key)).sort();
  for (const key of keys.strings ?? []) out[key] = await store.get(key);
  return out;
}

export async function seed(store: LiveStore, data: Seed): Promise<void> {
  for (const [key, fields] of Object.entries(data.hashes ?? {})) await store.hSet(key, fields);
  for (const [key, members] of Object.entries(data.sets ?? {})) {
    if (members.length > 0) await store.sAdd(key, ...members);
  }
  for (const [key, value] of Object.entries(data.strings ?? {})) await store.set(key, value);
}

/** Key names for one case: the same roles the engine's `keys.ts` gives them. */
function names() {
  const ns = `contract:${randomUUID()}`;
  return {
    state: `${ns}:state`,
    players: `${ns}:players`,
    devices: `${ns}:devices`,
    offline: `${ns}:offline`,
    alive: `${ns}:alive`,
    eliminated: `${ns}:eliminated`,
    reserved: `${ns}:reserved:1`,
    admitted: `${ns}:admitted:1`,
    ballots: `${ns}:ballots:1`,
    tally: `${ns}:tally:1`,
    voteIds: `${ns}:voteIds:1`,
    acknowledged: `${ns}:acknowledged:1`,
    mark: `${ns}:mark:0`,
    lease: `${ns}:lease`,
  };
}

const ballot = (voteId: string, user = 'u1') =>
  JSON.stringify({
    imageId: 'round-1-image-2',
    castAt: 500,
    voteId,
    username: user,
    offline: false,
  });

export function describeScriptsContract(
  name: string,
  makeFixture: () => Promise<ScriptsFixture>,
): void {
  describe(`game scripts contract (${name})`, () => {
    let fixture: ScriptsFixture;
    let store: LiveStore;
    let k: ReturnType<typeof names>;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
      k = names();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const run = <R extends ScriptReply>(
      script: StoreScript<R>,
      keys: string[],
      args: Array<string | number>,
    ) => store.run(script, keys, args);

    describe('joinGame', () => {
      const join = (user: string, device = '', now = 0, mode = 'live', choices = '') =>
        run(
          joinGame,
          [k.state, k.players, k.devices, k.offline, k.alive],
          [user, `{"u":"${user}"}`, device, now, mode, choices],
        );
      const all = () =>
        snapshot(store, {
          hashes: [k.state, k.players, k.devices, k.offline],
          sets: [k.alive],
        });

      it('NO_TOURNAMENT when the state has no tournament status, writing nothing', async () => {
        expect(await join('u1', 'd1')).toBe('NO_TOURNAMENT');
        expect(await all()).toEqual({
          [k.state]: {},
          [k.players]: {},
          [k.devices]: {},
          [k.offline]: {},
          [k.alive]: [],
        });
      });

      it('JOINED before the game: the player, the device, the count, alive already', async () => {
        // Alive from the join, so the game's creation copies no audience-sized list (issue 35).
        await seed(store, { hashes: { [k.state]: { tournamentStatus: 'upcoming' } } });
        expect(await join('u1', 'd1')).toBe('JOINED');
        expect(await all()).toEqual({
          [k.state]: { tournamentStatus: 'upcoming', participantCount: '1' },
          [k.players]: { u1: '{"u":"u1"}' },
          [k.devices]: { d1: 'u1' },
          [k.offline]: {},
          [k.alive]: ['u1'],
        });
      });

      it('JOINED in round 1 before its deadline: alive too', async () => {
        await seed(store, {
          hashes: {
            [k.state]: {
              tournamentStatus: 'live',
              gameId: 'g1',
              phase: 'voting',
              round: '1',
              votingEndsAt: '1000',
            },
          },
        });
        expect(await join('u1', '', 1000)).toBe('JOINED');
        const after = await all();
        expect(after[k.alive]).toEqual(['u1']);
        expect(after[k.state]).toMatchObject({ participantCount: '1' });
        expect(after[k.devices]).toEqual({});
      });

      it('ALREADY for a live join of a player already in, changing nothing', async () => {
        await seed(store, {
          hashes: {
            [k.state]: { tournamentStatus: 'upcoming', participantCount: '1' },
            [k.players]: { u1: 'old' },
          },
        });
        expect(await join('u1', 'd9')).toBe('ALREADY');
        expect(await all()).toEqual({
          [k.state]: { tournamentStatus: 'upcoming', participantCount: '1' },
          [k.players]: { u1: 'old' },
          [k.devices]: {},
          [k.offline]: {},
          [k.alive]: [],
        });
      });

      it.each([
        ['a later round', { phase: 'results', round: '2', votingEndsAt: '5000' }, 0],
        ['round 1 past its deadline', { phase: 'voting', round: '1', votingEndsAt: '1000' }, 1001],
        ['round 1 once voting ended', { phase: 'voting_ended', round: '1', votingEndsAt: '9' }, 0],
        ['a finished game', { phase: 'finished', round: '0', votingEndsAt: '0' }, 0],
      ])('JOIN_CLOSED in %s', async (_what, fields, now) => {
        const state = { tournamentStatus: 'live', gameId: 'g1', ...fields };
        await seed(store, { hashes: { [k.state]: state } });
        expect(await join('u1', 'd1', now)).toBe('JOIN_CLOSED');
        expect(await all()).toEqual({
          [k.state]: state,
          [k.players]: {},
          [k.devices]: {},
          [k.offline]: {},
          [k.alive]: [],
        });
      });

      it('JOIN_CLOSED for a tournament that is neither upcoming nor live', async () => {
        await seed(store, { hashes: { [k.state]: { tournamentStatus: 'ended', round: '0' } } });
        expect(await join('u1')).toBe('JOIN_CLOSED');
      });

      it('DEVICE_IN_USE for a live join on a device another player holds', async () => {
        await seed(store, {
          hashes: { [k.state]: { tournamentStatus: 'upcoming' }, [k.devices]: { d1: 'u2' } },
        });
        expect(await join('u1', 'd1')).toBe('DEVICE_IN_USE');
        expect(await all()).toEqual({
          [k.state]: { tournamentStatus: 'upcoming' },
          [k.players]: {},
          [k.devices]: { d1: 'u2' },
          [k.offline]: {},
          [k.alive]: [],
        });
      });

      it('offline: JOINED past the window and on a held device, choices kept once; then ALREADY', async () => {
        await seed(store, {
          hashes: {
            [k.state]: { tournamentStatus: 'live', gameId: 'g1', phase: 'results', round: '5' },
            [k.devices]: { d1: 'u2' },
          },
        });
        expect(await join('u1', 'd1', 0, 'offline', '[1,2]')).toBe('JOINED');
        expect(await join('u1', 'd1', 0, 'offline', '[3,3]')).toBe('ALREADY');
        expect(await all()).toEqual({
          [k.state]: {
            tournamentStatus: 'live',
            gameId: 'g1',
            phase: 'results',
            round: '5',
            participantCount: '1',
            offlineCount: '1',
          },
          [k.players]: { u1: '{"u":"u1"}' },
          [k.devices]: { d1: 'u2' },
          [k.offline]: { u1: '[1,2]' },
          [k.alive]: ['u1'],
        });
      });

      it('offline of a player who joined live: ALREADY, the choices recorded', async () => {
        await seed(store, {
          hashes: { [k.state]: { tournamentStatus: 'upcoming' }, [k.players]: { u1: 'live' } },
        });
        expect(await join('u1', '', 0, 'offline', '[0]')).toBe('ALREADY');
        expect(await all()).toMatchObject({
          [k.state]: { tournamentStatus: 'upcoming', offlineCount: '1' },
          [k.players]: { u1: 'live' },
          [k.offline]: { u1: '[0]' },
        });
      });
    });

    describe('admitVote', () => {
      const open = {
        gameId: 'g1',
        phase: 'voting',
        round: '1',
        votingEndsAt: '1000',
      };
      const admit = (
        user: string,
        round = 1,
        now = 500,
        device = '',
        image = 'round-1-image-2',
        voteId = 'v1',
      ) =>
        run(
          admitVote,
          [k.state, k.players, k.alive, k.devices, k.reserved, k.ballots, k.admitted],
          [user, round, image, now, device, voteId],
        );
      const seedGame = (state: Record<string, string> = open) =>
        seed(store, {
          hashes: { [k.state]: state, [k.players]: { u1: 'p', u2: 'p' } },
          sets: { [k.alive]: ['u1'] },
        });
      const sideEffects = () => snapshot(store, { hashes: [k.devices, k.reserved, k.admitted] });

      it('OK:<deadline>:<gameId>, reserving the vote and the device, the vote admitted by id', async () => {
        await seedGame();
        expect(await admit('u1', 1, 1000, 'd1')).toBe('OK:1000:g1');
        expect(await sideEffects()).toEqual({
          [k.devices]: { d1: 'u1' },
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.admitted]: { u1: 'v1|1000|P' },
        });
      });

      it('ALREADY_VOTED for a second vote for another image in the round, keeping the first', async () => {
        await seedGame();
        await admit('u1');
        expect(await admit('u1', 1, 500, '', 'round-1-image-3', 'v2')).toBe('ALREADY_VOTED');
        expect(await sideEffects()).toMatchObject({
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.admitted]: { u1: 'v1|500|P' },
        });
      });

      it.each([
        ['voting is open', open, 500, 'open'],
        ['past the deadline', open, 1001, 'closing'],
        ['in the grace', { ...open, phase: 'voting_ended' }, 1001, 'closing'],
        ['the round resolved', { ...open, phase: 'results' }, 2000, 'resolved'],
      ])(
        'PENDING:<voteId>:<castAt>:<gameId>:<state> for the same image while the first is unsettled (%s), writing nothing',
        async (_when, state, now, where) => {
          await seedGame();
          await admit('u1');
          await store.hSet(k.state, state);
          expect(await admit('u1', 1, now, '', 'round-1-image-2', 'v2')).toBe(
            `PENDING:v1:500:g1:${where}`,
          );
          expect(await sideEffects()).toEqual({
            [k.devices]: {},
            [k.reserved]: { u1: 'round-1-image-2' },
            [k.admitted]: { u1: 'v1|500|P' },
          });
        },
      );

      it('ACKNOWLEDGED for the same image once the first was settled acknowledged, even past the deadline', async () => {
        await seedGame();
        await seed(store, {
          hashes: { [k.reserved]: { u1: 'round-1-image-2' }, [k.admitted]: { u1: 'v1|500|A' } },
        });
        expect(await admit('u1', 1, 1001, '', 'round-1-image-2', 'v2')).toBe('ACKNOWLEDGED');
        expect(await admit('u1', 1, 1001, '', 'round-1-image-3', 'v2')).toBe('ALREADY_VOTED');
      });

      it('COUNTED for the same image once the engine counted the first, even eliminated since; ALREADY_VOTED for another', async () => {
        await seedGame({ ...open, phase: 'results' });
        await seed(store, {
          hashes: { [k.ballots]: { u2: ballot('v1', 'u2') } },
        });
        expect(await admit('u2', 1, 2000, '', 'round-1-image-2', 'v2')).toBe('COUNTED');
        expect(await admit('u2', 1, 2000, '', 'round-1-image-3', 'v2')).toBe('ALREADY_VOTED');
      });

      it("answers a resend from a resolved round with that round's ballot, eliminated since or not", async () => {
        // Round 2 is open; the resends are round 1's (the keys are round 1's, as the gateway
        // builds them from the vote's round).
        await seedGame({ ...open, round: '2', votingEndsAt: '3000' });
        await seed(store, {
          hashes: { [k.ballots]: { u1: ballot('v1', 'u1'), u2: ballot('v2', 'u2') } },
        });
        expect(await admit('u1', 1, 2500, '', 'round-1-image-2', 'v3')).toBe('COUNTED');
        expect(await admit('u2', 1, 2500, '', 'round-1-image-2', 'v4')).toBe('COUNTED');
        expect(await admit('u1', 1, 2500, '', 'round-1-image-3', 'v3')).toBe('ALREADY_VOTED');
        expect(await sideEffects()).toEqual({
          [k.devices]: {},
          [k.reserved]: {},
          [k.admitted]: {},
        });
      });

      it('refuses a resend from a resolved round that has no ballot, as before', async () => {
        await seedGame({ ...open, round: '2', votingEndsAt: '3000' });
        expect(await admit('u1', 1, 2500, '', 'round-1-image-2', 'v3')).toBe('WRONG_ROUND');
        expect(await admit('u2', 1, 2500, '', 'round-1-image-2', 'v4')).toBe('ELIMINATED');
      });

      it('ALREADY_VOTED for a reservation without an admitted vote (the engine applied one)', async () => {
        await seedGame();
        await seed(store, { hashes: { [k.reserved]: { u1: 'round-1-image-2' } } });
        expect(await admit('u1', 1, 500, '', 'round-1-image-2', 'v2')).toBe('ALREADY_VOTED');
      });

      it('ALREADY_VOTED for a reservation whose admitted entry is not `id|castAt|status`, leaving both', async () => {
        await seedGame();
        await seed(store, {
          hashes: { [k.reserved]: { u1: 'round-1-image-2' }, [k.admitted]: { u1: 'v1-no-bars' } },
        });
        expect(await admit('u1', 1, 500, '', 'round-1-image-2', 'v2')).toBe('ALREADY_VOTED');
        expect(await sideEffects()).toMatchObject({
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.admitted]: { u1: 'v1-no-bars' },
        });
      });

      it.each([
        [
          'no game',
          { phase: 'voting', round: '1', votingEndsAt: '1000' },
          'u1',
          1,
          500,
          'NO_LIVE_GAME',
        ],
        ['an empty game id', { ...open, gameId: '' }, 'u1', 1, 500, 'NO_LIVE_GAME'],
        ['a finished game', { ...open, phase: 'finished' }, 'u1', 1, 500, 'NO_LIVE_GAME'],
        ['a stranger', open, 'u3', 1, 500, 'NOT_PARTICIPANT'],
        ['round 0', { ...open, round: '0' }, 'u1', 0, 500, 'WRONG_ROUND'],
        ['an eliminated player', open, 'u2', 1, 500, 'ELIMINATED'],
        ['another round', open, 'u1', 2, 500, 'WRONG_ROUND'],
        ['results', { ...open, phase: 'results' }, 'u1', 1, 500, 'VOTING_CLOSED'],
        ['past the deadline', open, 'u1', 1, 1001, 'VOTING_CLOSED'],
      ])('refuses %s, writing nothing', async (_what, state, user, round, now, reply) => {
        await seedGame(state);
        expect(await admit(user, round, now, 'd1')).toBe(reply);
        expect(await sideEffects()).toEqual({
          [k.devices]: {},
          [k.reserved]: {},
          [k.admitted]: {},
        });
      });

      it('DEVICE_IN_USE on a device another player holds, reserving nothing', async () => {
        await seedGame();
        await seed(store, { hashes: { [k.devices]: { d1: 'u2' } } });
        expect(await admit('u1', 1, 500, 'd1')).toBe('DEVICE_IN_USE');
        expect(await sideEffects()).toEqual({
          [k.devices]: { d1: 'u2' },
          [k.reserved]: {},
          [k.admitted]: {},
        });
      });
    });

    describe('releaseVote', () => {
      it('1 when the reservation is for that image (removed), 0 otherwise (kept)', async () => {
        await seed(store, { hashes: { [k.reserved]: { u1: 'img-a', u2: 'img-b' } } });
        expect(await run(releaseVote, [k.reserved], ['u1', 'img-a'])).toBe(1);
        expect(await run(releaseVote, [k.reserved], ['u2', 'img-a'])).toBe(0);
        expect(await run(releaseVote, [k.reserved], ['u3', 'img-a'])).toBe(0);
        expect(await snapshot(store, { hashes: [k.reserved] })).toEqual({
          [k.reserved]: { u2: 'img-b' },
        });
      });
    });

    describe('applyVote', () => {
      const open = { gameId: 'g1', phase: 'voting', round: '1', votingEndsAt: '1000' };
      const apply = (
        voteId: string,
        opts: { user?: string; gameId?: string; round?: number; castAt?: number } = {},
        mark?: [number, string],
      ) =>
        run(
          applyVote,
          [k.state, k.alive, k.ballots, k.tally, k.voteIds, k.reserved, ...(mark ? [k.mark] : [])],
          [
            opts.gameId ?? 'g1',
            voteId,
            opts.user ?? 'u1',
            opts.round ?? 1,
            'round-1-image-2',
            opts.castAt ?? 500,
            ballot(voteId, opts.user),
            ...(mark ?? []),
          ],
        );
      const seedGame = (state: Record<string, string> = open) =>
        seed(store, { hashes: { [k.state]: state }, sets: { [k.alive]: ['u1', 'u2'] } });
      const all = () =>
        snapshot(store, {
          hashes: [k.state, k.ballots, k.tally, k.reserved],
          sets: [k.voteIds],
          strings: [k.mark],
        });

      it('COUNTED: ballot, reservation, tally, total, vote id; the mark raised', async () => {
        await seedGame();
        expect(await apply('v1', {}, [5, ''])).toBe('COUNTED');
        expect(await all()).toEqual({
          [k.state]: { ...open, totalVotes: '1' },
          [k.ballots]: { u1: ballot('v1') },
          [k.tally]: { 'round-1-image-2': '1' },
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.voteIds]: ['v1'],
          [k.mark]: '5',
        });
      });

      it('COUNTED while voting_ended, keeping a reservation already there', async () => {
        await seedGame({ ...open, phase: 'voting_ended' });
        await seed(store, { hashes: { [k.reserved]: { u1: 'round-1-image-0' } } });
        expect(await apply('v1')).toBe('COUNTED');
        expect((await all())[k.reserved]).toEqual({ u1: 'round-1-image-0' });
      });

      it('NO_GAME for another game: nothing written, yet the mark raised', async () => {
        await seedGame();
        expect(await apply('v1', { gameId: 'g2' }, [3, ''])).toBe('NO_GAME');
        expect(await all()).toEqual({
          [k.state]: open,
          [k.ballots]: {},
          [k.tally]: {},
          [k.reserved]: {},
          [k.voteIds]: [],
          [k.mark]: '3',
        });
      });

      it('DUPLICATE for a vote id seen before, counting nothing more', async () => {
        await seedGame();
        expect(await apply('v1')).toBe('COUNTED');
        expect(await apply('v1')).toBe('DUPLICATE');
        expect((await all())[k.state]).toEqual({ ...open, totalVotes: '1' });
      });

      it.each([
        ['another round', open, { round: 2 }, 'CLOSED'],
        ['results', { ...open, phase: 'results' }, {}, 'CLOSED'],
        ['a vote stamped past the deadline', open, { castAt: 1001 }, 'LATE'],
        ['a player out', open, { user: 'u9' }, 'NOT_ELIGIBLE'],
      ])('refuses %s, keeping its id', async (_what, state, opts, reply) => {
        await seedGame(state);
        expect(await apply('v1', opts)).toBe(reply);
        expect(await all()).toEqual({
          [k.state]: state,
          [k.ballots]: {},
          [k.tally]: {},
          [k.reserved]: {},
          [k.voteIds]: ['v1'],
          [k.mark]: null,
        });
      });

      it('ALREADY_VOTED for a second vote of the player in the round', async () => {
        await seedGame();
        expect(await apply('v1')).toBe('COUNTED');
        expect(await apply('v2')).toBe('ALREADY_VOTED');
        expect(await all()).toMatchObject({
          [k.state]: { totalVotes: '1' },
          [k.ballots]: { u1: ballot('v1') },
          [k.tally]: { 'round-1-image-2': '1' },
          [k.voteIds]: ['v1', 'v2'],
        });
      });

      it('raises the mark only past the one the message before left', async () => {
        await seedGame();
        await seed(store, { strings: { [k.mark]: '4' } });
        expect(await apply('v1', {}, [9, '7'])).toBe('COUNTED');
        expect((await all())[k.mark]).toBe('4');
        expect(await apply('v2', { user: 'u2' }, [5, '4'])).toBe('COUNTED');
        expect((await all())[k.mark]).toBe('5');
        expect(await apply('v3', { user: 'u9' }, [2, ''])).toBe('NOT_ELIGIBLE');
        expect((await all())[k.mark]).toBe('5');
      });
    });

    describe('applyVotes', () => {
      const open = { gameId: 'g1', phase: 'voting', round: '1', votingEndsAt: '1000' };
      interface Vote {
        gameId: string;
        voteId: string;
        user: string;
        round: number;
        image: string;
        castAt: number;
      }
      const vote = (voteId: string, opts: Partial<Vote> = {}): Vote => ({
        gameId: 'g1',
        voteId,
        user: 'u1',
        round: 1,
        image: 'round-1-image-2',
        castAt: 500,
        ...opts,
      });
      const ballotOf = (v: Vote) =>
        JSON.stringify({
          imageId: v.image,
          castAt: v.castAt,
          voteId: v.voteId,
          username: v.user,
          offline: false,
        });
      /** One namespace's keys, rounds 0 to 2 (a vote may name any round). */
      const game = () => {
        const ns = `contract:${randomUUID()}`;
        const round = (r: number) => ({
          ballots: `${ns}:r${r}:ballots`,
          tally: `${ns}:r${r}:tally`,
          voteIds: `${ns}:r${r}:vote-ids`,
          reserved: `${ns}:r${r}:reserved`,
        });
        return {
          state: `${ns}:state`,
          alive: `${ns}:alive`,
          mark: `${ns}:mark:0`,
          rounds: [0, 1, 2].map(round),
        };
      };
      type Game = ReturnType<typeof game>;
      const seedGame = (g: Game, state: Record<string, string> = open, mark?: string) =>
        seed(store, {
          hashes: { [g.state]: state },
          sets: { [g.alive]: ['u1', 'u2'] },
          strings: mark === undefined ? {} : { [g.mark]: mark },
        });
      /** The batch step, as the engine calls it: one key group per round its votes name. */
      const applyBatch = (g: Game, votes: Vote[], mark: [number | string, string]) => {
        const rounds = [...new Set(votes.map((v) => v.round))];
        return run(
          applyVotes,
          [
            g.state,
            g.alive,
            g.mark,
            ...rounds.flatMap((r) => {
              const keys = g.rounds[r]!;
              return [keys.ballots, keys.tally, keys.voteIds, keys.reserved];
            }),
          ],
          [
            ...mark,
            ...votes.flatMap((v) => [
              v.gameId,
              v.voteId,
              v.user,
              v.round,
              v.image,
              v.castAt,
              ballotOf(v),
              rounds.indexOf(v.round) + 1,
            ]),
          ],
        );
      };
      /** The same votes one `applyVote` each, each message's mark chained to the one before. */
      const applyOneByOne = async (g: Game, votes: Vote[], firstOffset: number) => {
        const replies: string[] = [];
        for (const [i, v] of votes.entries()) {
          const keys = g.rounds[v.round]!;
          replies.push(
            await run(
              applyVote,
              [g.state, g.alive, keys.ballots, keys.tally, keys.voteIds, keys.reserved, g.mark],
              [
                v.gameId,
                v.voteId,
                v.user,
                v.round,
                v.image,
                v.castAt,
                ballotOf(v),
                firstOffset + i + 1,
                i === 0 ? '' : firstOffset + i,
              ],
            ),
          );
        }
        return replies;
      };
      /** Every key of a namespace, named by its role so two namespaces compare. */
      const contents = async (g: Game) => ({
        state: await store.hGetAll(g.state),
        alive: (await store.sMembers(g.alive)).sort(),
        mark: await store.get(g.mark),
        rounds: await Promise.all(
          g.rounds.map(async (r) => ({
            ballots: await store.hGetAll(r.ballots),
            tally: await store.hGetAll(r.tally),
            voteIds: (await store.sMembers(r.voteIds)).sort(),
            reserved: await store.hGetAll(r.reserved),
          })),
        ),
      });

      const mixed = [
        vote('v1'),
        vote('v2', { user: 'u2', image: 'round-1-image-0' }),
        vote('v1', { user: 'u2' }),
        vote('v3'),
        vote('v4', { gameId: 'g2' }),
        vote('v5', { round: 2 }),
        vote('v6', { round: 0 }),
        vote('v7', { user: 'u9' }),
        vote('v8', { castAt: 1001 }),
      ];
      const mixedReplies = [
        'COUNTED',
        'COUNTED',
        'DUPLICATE',
        'ALREADY_VOTED',
        'NO_GAME',
        'CLOSED',
        'CLOSED',
        'NOT_ELIGIBLE',
        'LATE',
      ];

      it('one reply per vote, and the same replies and keys as one applyVote per vote', async () => {
        const [batched, single] = [game(), game()];
        await seedGame(batched);
        await seedGame(single);
        expect(await applyBatch(batched, mixed, [mixed.length, ''])).toEqual(mixedReplies);
        expect(await applyOneByOne(single, mixed, 0)).toEqual(mixedReplies);
        const after = await contents(batched);
        expect(after).toEqual(await contents(single));
        expect(after).toMatchObject({
          state: { ...open, totalVotes: '2' },
          mark: String(mixed.length),
          rounds: [
            { voteIds: ['v6'], ballots: {} },
            {
              tally: { 'round-1-image-2': '1', 'round-1-image-0': '1' },
              voteIds: ['v1', 'v2', 'v3', 'v7', 'v8'],
              reserved: { u1: 'round-1-image-2', u2: 'round-1-image-0' },
            },
            { voteIds: ['v5'], ballots: {} },
          ],
        });
      });

      it('a redelivered batch changes no tally: DUPLICATE for every vote it applied', async () => {
        const g = game();
        await seedGame(g);
        await applyBatch(g, mixed, [mixed.length, '']);
        const before = await contents(g);
        const again = await applyBatch(g, mixed, [mixed.length, '']);
        expect(again).toEqual(mixedReplies.map((r) => (r === 'NO_GAME' ? r : 'DUPLICATE')));
        expect(await contents(g)).toEqual(before);
      });

      it('raises the mark whatever the replies, only past the one the call before left', async () => {
        const g = game();
        await seedGame(g, open, '4');
        expect(await applyBatch(g, [vote('v1', { gameId: 'g2' })], [9, '7'])).toEqual(['NO_GAME']);
        expect(await store.get(g.mark)).toBe('4');
        expect(await applyBatch(g, [vote('v2', { user: 'u9' })], [6, '4'])).toEqual([
          'NOT_ELIGIBLE',
        ]);
        expect(await store.get(g.mark)).toBe('6');
        expect(await applyBatch(g, [vote('v3')], [5, ''])).toEqual(['COUNTED']);
        expect(await store.get(g.mark)).toBe('6');
        expect(await applyBatch(g, [], [8, ''])).toEqual([]);
        expect(await store.get(g.mark)).toBe('8');
      });

      it(`refuses more than ${VOTES_PER_APPLY} votes in one step, writing nothing`, async () => {
        const g = game();
        await seedGame(g);
        const votes = Array.from({ length: VOTES_PER_APPLY + 1 }, (_, n) => vote(`x${n}`));
        const refused = await applyBatch(g, votes, [1, '']).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(LiveStoreError);
        expect((refused as LiveStoreError).code).toBe('ERR');
        expect(await contents(g)).toMatchObject({ state: open, mark: null });
        expect((await contents(g)).rounds[1]).toEqual({
          ballots: {},
          tally: {},
          voteIds: [],
          reserved: {},
        });
      });

      const randomVote: fc.Arbitrary<Vote> = fc.record({
        gameId: fc.constantFrom('g1', 'g1', 'g1', 'g2'),
        voteId: fc.constantFrom('v1', 'v2', 'v3', 'v4', 'v5'),
        user: fc.constantFrom('u1', 'u2', 'u3'),
        round: fc.constantFrom(1, 1, 1, 2, 0),
        image: fc.constantFrom('round-1-image-0', 'round-1-image-1'),
        castAt: fc.constantFrom(0, 500, 1000, 1001),
      });
      const randomState = fc.record({
        gameId: fc.constantFrom('g1', 'g1', 'g1', ''),
        phase: fc.constantFrom('voting', 'voting', 'voting_ended', 'results'),
        round: fc.constantFrom('1', '1', '2'),
        votingEndsAt: fc.constantFrom('500', '1000'),
      });

      it('random batches: the same replies and keys as one applyVote per vote, twice over', async () => {
        await fc.assert(
          fc.asyncProperty(
            randomState,
            fc.option(fc.constantFrom('0', '3', '40')),
            fc.array(randomVote, { maxLength: 12 }),
            fc.array(randomVote, { maxLength: 12 }),
            async (state, mark, first, second) => {
              const [batched, single] = [game(), game()];
              await seedGame(batched, state, mark ?? undefined);
              await seedGame(single, state, mark ?? undefined);
              // Two batches of the partition, the second redelivering some of the first's ids.
              expect(await applyBatch(batched, first, [first.length, ''])).toEqual(
                await applyOneByOne(single, first, 0),
              );
              expect(await applyBatch(batched, second, [first.length + second.length, ''])).toEqual(
                await applyOneByOne(single, second, first.length),
              );
              expect(await contents(batched)).toEqual(await contents(single));
            },
          ),
          { numRuns: 100, seed: 35 },
        );
      });
    });

    describe('settleVote', () => {
      const open = { gameId: 'g1', phase: 'voting', round: '1' };
      const settle = (voteId: string, produced: '0' | '1', gameId = 'g1', round = '1') =>
        run(
          settleVote,
          [k.state, k.voteIds, k.ballots, k.reserved, k.admitted],
          [gameId, round, voteId, 'u1', 'round-1-image-2', produced],
        );
      const all = () => snapshot(store, { hashes: [k.reserved], sets: [k.voteIds] });
      const admitted = async () => (await snapshot(store, { hashes: [k.admitted] }))[k.admitted];
      const reservedBy = (entry: string) => ({
        [k.state]: open,
        [k.reserved]: { u1: 'round-1-image-2' },
        [k.admitted]: { u1: entry },
      });

      it('ACKNOWLEDGED marks its admitted vote acknowledged (A), so a resend is acknowledged too', async () => {
        await seed(store, { hashes: reservedBy('v1|500|P') });
        expect(await settle('v1', '1')).toBe('ACKNOWLEDGED');
        expect(await admitted()).toEqual({ u1: 'v1|500|A' });
      });

      it('ACKNOWLEDGED keeps the highest offset acknowledged per partition; one without an offset makes it unknown for good', async () => {
        const produced = (voteId: string, user: string, partition: number, offset: string) =>
          run(
            settleVote,
            [k.state, k.voteIds, k.ballots, k.reserved, k.admitted, k.acknowledged],
            ['g1', '1', voteId, user, 'round-1-image-2', '1', partition, offset],
          );
        const ends = async () =>
          (await snapshot(store, { hashes: [k.acknowledged] }))[k.acknowledged];
        await seed(store, { hashes: { [k.state]: open } });
        expect(await produced('v1', 'u1', 0, '9')).toBe('ACKNOWLEDGED');
        expect(await produced('v2', 'u2', 0, '10')).toBe('ACKNOWLEDGED');
        // Settled out of order: a lower offset never lowers the end.
        expect(await produced('v3', 'u3', 0, '7')).toBe('ACKNOWLEDGED');
        expect(await produced('v4', 'u4', 3, '123456789012345678')).toBe('ACKNOWLEDGED');
        expect(await ends()).toEqual({ '0': '10', '3': '123456789012345678' });
        expect(await produced('v5', 'u5', 3, '')).toBe('ACKNOWLEDGED');
        expect(await produced('v6', 'u6', 3, '123456789012345679')).toBe('ACKNOWLEDGED');
        expect(await ends()).toEqual({ '0': '10', '3': 'unknown' });
        // A vote settled once the votes are closing is not acknowledged, and moves no end.
        await seed(store, { hashes: { [k.state]: { ...open, votesEndOffset: 'closing' } } });
        expect(await produced('v7', 'u7', 0, '11')).toBe('WITHDRAWN');
        expect(await ends()).toEqual({ '0': '10', '3': 'unknown' });
      });

      it('ACKNOWLEDGED for a vote already acknowledged, even withdrawn by a resend once the votes close: never withdrawn', async () => {
        await seed(store, {
          hashes: { ...reservedBy('v1|500|A'), [k.state]: { ...open, votesEndOffset: '12' } },
        });
        expect(await settle('v1', '0')).toBe('ACKNOWLEDGED');
        expect(await all()).toEqual({ [k.reserved]: { u1: 'round-1-image-2' }, [k.voteIds]: [] });
        expect(await admitted()).toEqual({ u1: 'v1|500|A' });
      });

      it('WITHDRAWN removes its own admitted vote with the reservation (a resend may vote anew)', async () => {
        await seed(store, { hashes: reservedBy('v1|500|P') });
        expect(await settle('v1', '0')).toBe('WITHDRAWN');
        expect(await all()).toEqual({ [k.reserved]: {}, [k.voteIds]: ['v1'] });
        expect(await admitted()).toEqual({});
      });

      it.each([
        ['not applied yet', []],
        ['withdrawn by the resend that took its place', ['v1']],
      ])(
        "SUPERSEDED when another vote of the player holds the admission (%s): never acknowledged, the other's reservation kept",
        async (_when, ids) => {
          await seed(store, {
            hashes: reservedBy('v2|600|P'),
            sets: { [k.voteIds]: ids },
          });
          expect(await settle('v1', '1')).toBe('SUPERSEDED');
          expect(await all()).toEqual({
            [k.reserved]: { u1: 'round-1-image-2' },
            [k.voteIds]: ['v1'],
          });
          expect(await admitted()).toEqual({ u1: 'v2|600|P' });
        },
      );

      it('COUNTED, not ACKNOWLEDGED, for a produced vote the engine applied already', async () => {
        await seed(store, {
          hashes: { ...reservedBy('v1|500|P'), [k.ballots]: { u1: ballot('v1') } },
          sets: { [k.voteIds]: ['v1'] },
        });
        expect(await settle('v1', '1')).toBe('COUNTED');
      });

      it('NOT_COUNTED for a produced vote the engine applied and refused (it was acknowledged before)', async () => {
        await seed(store, {
          hashes: { ...reservedBy('v1|500|P'), [k.ballots]: { u1: ballot('v0') } },
          sets: { [k.voteIds]: ['v0', 'v1'] },
        });
        expect(await settle('v1', '1')).toBe('NOT_COUNTED');
        expect(await admitted()).toEqual({});
      });

      it.each([
        ['voting', open],
        ['voting_ended', { ...open, phase: 'voting_ended' }],
      ])(
        'ACKNOWLEDGED when produced while %s before the capture, writing nothing',
        async (_p, state) => {
          await seed(store, {
            hashes: { [k.state]: state, [k.reserved]: { u1: 'round-1-image-2' } },
          });
          expect(await settle('v1', '1')).toBe('ACKNOWLEDGED');
          expect(await all()).toEqual({
            [k.reserved]: { u1: 'round-1-image-2' },
            [k.voteIds]: [],
          });
        },
      );

      it.each([
        ['not produced', open, '0', 'g1', '1'],
        ['produced once the capture began', { ...open, votesEndOffset: '12' }, '1', 'g1', '1'],
        ['produced for another game', open, '1', 'g2', '1'],
        ['produced for another round', open, '1', 'g1', '2'],
        ['produced in results', { ...open, phase: 'results' }, '1', 'g1', '1'],
      ] as const)(
        'WITHDRAWN when %s and not applied: the id taken, the reservation released',
        async (_what, state, produced, gameId, round) => {
          await seed(store, {
            hashes: {
              [k.state]: state,
              [k.reserved]: { u1: 'round-1-image-2' },
              [k.admitted]: { u1: 'v1|500|P' },
            },
          });
          expect(await settle('v1', produced, gameId, round)).toBe('WITHDRAWN');
          expect(await all()).toEqual({ [k.reserved]: {}, [k.voteIds]: ['v1'] });
          expect(await admitted()).toEqual({});
        },
      );

      it('WITHDRAWN keeps a reservation it did not make (no admitted vote of its id: the engine applied another)', async () => {
        await seed(store, { hashes: { [k.state]: open, [k.reserved]: { u1: 'round-1-image-2' } } });
        expect(await settle('v1', '0')).toBe('WITHDRAWN');
        expect(await all()).toEqual({
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.voteIds]: ['v1'],
        });
      });

      it('WITHDRAWN keeps a reservation for another image', async () => {
        await seed(store, {
          hashes: {
            [k.state]: open,
            [k.reserved]: { u1: 'round-1-image-0' },
            [k.admitted]: { u1: 'v1|500|P' },
          },
        });
        expect(await settle('v1', '0')).toBe('WITHDRAWN');
        expect(await all()).toEqual({
          [k.reserved]: { u1: 'round-1-image-0' },
          [k.voteIds]: ['v1'],
        });
      });

      it('COUNTED when the engine applied and counted it, keeping the reservation', async () => {
        await seed(store, {
          hashes: {
            [k.state]: open,
            [k.ballots]: { u1: ballot('v1') },
            [k.reserved]: { u1: 'round-1-image-2' },
          },
          sets: { [k.voteIds]: ['v1'] },
        });
        expect(await settle('v1', '0')).toBe('COUNTED');
        expect(await all()).toEqual({
          [k.reserved]: { u1: 'round-1-image-2' },
          [k.voteIds]: ['v1'],
        });
      });

      it('NOT_COUNTED when the engine applied and refused it, releasing the reservation', async () => {
        await seed(store, {
          hashes: {
            [k.state]: open,
            [k.ballots]: { u1: ballot('v0') },
            [k.reserved]: { u1: 'round-1-image-2' },
            [k.admitted]: { u1: 'v1|500|P' },
          },
          sets: { [k.voteIds]: ['v0', 'v1'] },
        });
        expect(await settle('v1', '0')).toBe('NOT_COUNTED');
        expect(await all()).toEqual({ [k.reserved]: {}, [k.voteIds]: ['v0', 'v1'] });
        expect(await admitted()).toEqual({});
      });

      it('NOT_COUNTED with no ballot at all', async () => {
        await seed(store, { hashes: { [k.state]: open }, sets: { [k.voteIds]: ['v1'] } });
        expect(await settle('v1', '0')).toBe('NOT_COUNTED');
      });
    });

    describe('createGame', () => {
      it('CREATED:<gameId> with every registered player alive (those who joined before alive began at the join copied); then EXISTS:<gameId>', async () => {
        await seed(store, {
          hashes: {
            [k.state]: { tournamentStatus: 'upcoming', participantCount: '2' },
            [k.players]: { u1: 'p', u2: 'p' },
          },
        });
        const create = (gameId: string, now: number) =>
          run(createGame, [k.state, k.players, k.alive], [gameId, now, 17]);
        expect(await create('g1', 100)).toBe('CREATED:g1');
        expect(await create('g2', 200)).toBe('EXISTS:g1');
        expect(await snapshot(store, { hashes: [k.state], sets: [k.alive] })).toEqual({
          [k.state]: {
            tournamentStatus: 'live',
            participantCount: '2',
            gameId: 'g1',
            phase: 'waiting',
            round: '0',
            totalRounds: '17',
            startedAt: '100',
            phaseEndsAt: '0',
            totalVotes: '0',
          },
          [k.alive]: ['u1', 'u2'],
        });
      });

      it('CREATED over players who joined alive: the alive set as the joins left it', async () => {
        await seed(store, { hashes: { [k.state]: { tournamentStatus: 'upcoming' } } });
        for (const user of ['u1', 'u2', 'u3']) {
          await run(
            joinGame,
            [k.state, k.players, k.devices, k.offline, k.alive],
            [user, 'p', '', 0, 'live', ''],
          );
        }
        expect(await run(createGame, [k.state, k.players, k.alive], ['g1', 1, 3])).toBe(
          'CREATED:g1',
        );
        expect(await snapshot(store, { sets: [k.alive] })).toEqual({
          [k.alive]: ['u1', 'u2', 'u3'],
        });
      });

      it('CREATED with no players: no alive set', async () => {
        expect(await run(createGame, [k.state, k.players, k.alive], ['g1', 1, 3])).toBe(
          'CREATED:g1',
        );
        expect(await snapshot(store, { sets: [k.alive] })).toEqual({ [k.alive]: [] });
      });
    });

    describe('leases', () => {
      const acquire = (owner: string) => run(acquireLease, [k.lease, k.state], [owner, 60_000]);
      const release = (owner: string, token: number) =>
        run(releaseLease, [k.lease], [owner, token]);

      it('a token on taking, the same on renewing, 0 for another owner; release frees it', async () => {
        expect(await acquire('a')).toBe(1);
        expect(await acquire('a')).toBe(1);
        expect(await acquire('b')).toBe(0);
        expect(await store.get(k.lease)).toBe('a|1');
        const ttl = await store.ttlMs(k.lease);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);

        expect(await release('b', 1)).toBe(0);
        expect(await release('a', 2)).toBe(0);
        expect(await store.get(k.lease)).toBe('a|1');
        expect(await release('a', 1)).toBe(1);
        expect(await store.get(k.lease)).toBeNull();

        expect(await acquire('b')).toBe(2);
        expect(await snapshot(store, { hashes: [k.state], strings: [k.lease] })).toEqual({
          [k.state]: { fence: '2' },
          [k.lease]: 'b|2',
        });
      });

      it('renewing sets the expiry again', async () => {
        await seed(store, { strings: { [k.lease]: 'a|7' } });
        expect(await store.ttlMs(k.lease)).toBe(-1);
        expect(await acquire('a')).toBe(7);
        expect(await store.ttlMs(k.lease)).toBeGreaterThan(0);
        expect(await snapshot(store, { hashes: [k.state] })).toEqual({ [k.state]: {} });
      });
    });

    describe('advanceGame', () => {
      const state = { fence: '3', phase: 'voting', round: '2', gameId: 'g1' };
      const advance = (args: Array<string | number>) =>
        run(advanceGame, [k.state, k.alive, k.eliminated], args);
      const all = () => snapshot(store, { hashes: [k.state, k.eliminated], sets: [k.alive] });
      beforeEach(() =>
        seed(store, { hashes: { [k.state]: state }, sets: { [k.alive]: ['u1', 'u2', 'u3'] } }),
      );

      it('OK: the fields written, the eliminated moved out of alive', async () => {
        expect(
          await advance([
            '3',
            'voting',
            '2',
            2,
            'phase',
            'results',
            'phaseEndsAt',
            '90',
            '2',
            'u1',
            'u3',
          ]),
        ).toBe('OK');
        expect(await all()).toEqual({
          [k.state]: { ...state, phase: 'results', phaseEndsAt: '90' },
          [k.eliminated]: { u1: '2', u3: '2' },
          [k.alive]: ['u2'],
        });
      });

      it('OK from any phase with `*`, with nothing to write', async () => {
        expect(await advance(['3', '*', '', 0, '9'])).toBe('OK');
        expect(await all()).toEqual({
          [k.state]: state,
          [k.eliminated]: {},
          [k.alive]: ['u1', 'u2', 'u3'],
        });
      });

      it.each([
        ['an old token', ['2', 'voting', '2'], 'FENCED'],
        ['an empty token', ['', '*', ''], 'FENCED'],
        ['another phase', ['3', 'results', '2'], 'STALE'],
        ['another round', ['3', 'voting', '1'], 'STALE'],
      ])('refuses %s, writing nothing', async (_what, head, reply) => {
        expect(await advance([...head, 1, 'phase', 'finished', '2', 'u1'])).toBe(reply);
        expect(await all()).toEqual({
          [k.state]: state,
          [k.eliminated]: {},
          [k.alive]: ['u1', 'u2', 'u3'],
        });
      });
    });

    describe('eliminatePlayers', () => {
      const state = { fence: '3', phase: 'results', round: '2', gameId: 'g1' };
      const step = (head: string[], users: string[]) =>
        run(eliminatePlayers, [k.state, k.alive, k.eliminated], [...head, '2', ...users]);
      const all = () => snapshot(store, { hashes: [k.state, k.eliminated], sets: [k.alive] });
      beforeEach(() =>
        seed(store, {
          hashes: { [k.state]: state, [k.eliminated]: { u0: '1' } },
          sets: { [k.alive]: ['u1', 'u2', 'u3'] },
        }),
      );

      it('OK: the ids out of alive, their round recorded; an earlier round never changed', async () => {
        expect(await step(['3', 'results', '2'], ['u1', 'u3', 'u0'])).toBe('OK');
        expect(await step(['3', 'results', '2'], ['u1'])).toBe('OK');
        expect(await all()).toEqual({
          [k.state]: state,
          [k.eliminated]: { u0: '1', u1: '2', u3: '2' },
          [k.alive]: ['u2'],
        });
      });

      it.each([
        ['an old token', ['2', 'results', '2'], 'FENCED'],
        ['another phase', ['3', 'tallying', '2'], 'STALE'],
        ['another round', ['3', 'results', '1'], 'STALE'],
      ])('refuses %s, writing nothing', async (_what, head, reply) => {
        expect(await step(head, ['u1'])).toBe(reply);
        expect(await all()).toEqual({
          [k.state]: state,
          [k.eliminated]: { u0: '1' },
          [k.alive]: ['u1', 'u2', 'u3'],
        });
      });

      it(`refuses more than ${MEMBERS_PER_STEP} ids in one step, writing nothing`, async () => {
        const users = ['u1', ...Array.from({ length: MEMBERS_PER_STEP }, (_, n) => `x${n}`)];
        const refused = await step(['3', 'results', '2'], users).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(LiveStoreError);
        expect((refused as LiveStoreError).code).toBe('ERR');
        expect(await all()).toEqual({
          [k.state]: state,
          [k.eliminated]: { u0: '1' },
          [k.alive]: ['u1', 'u2', 'u3'],
        });
      });
    });

    describe('eliminate (a round of any size, in steps)', () => {
      const tournamentId = () => `contract-${randomUUID()}`;
      const fence = { token: 3, phase: 'results', round: 2 } as const;
      const users = (count: number) => Array.from({ length: count }, (_, n) => `user:${n}`);

      it.each([MEMBERS_PER_STEP, MEMBERS_PER_STEP + 1, 25_000])(
        'eliminates %i players and leaves exactly the others alive',
        async (count) => {
          const id = tournamentId();
          const keys = gameKeys(id);
          const everyone = users(count + 3);
          await seed(store, {
            hashes: { [keys.state]: { fence: '3', phase: 'results', round: '2' } },
          });
          await store.sAddMembers(keys.alive, everyone);
          const out = everyone.slice(3);
          expect(await eliminate(store, id, fence, { round: 2, userIds: out })).toBe('OK');
          expect((await store.sMembers(keys.alive)).sort()).toEqual(everyone.slice(0, 3).sort());
          const recorded = await store.hGetAll(keys.eliminated);
          expect(Object.keys(recorded).length).toBe(count);
          expect(out.filter((user) => recorded[user] !== '2')).toEqual([]);
        },
      );

      it('answers the first refusal, eliminating no one', async () => {
        const id = tournamentId();
        const keys = gameKeys(id);
        await seed(store, {
          hashes: { [keys.state]: { fence: '4', phase: 'results', round: '2' } },
          sets: { [keys.alive]: ['u1', 'u2'] },
        });
        expect(await eliminate(store, id, fence, { round: 2, userIds: ['u1'] })).toBe('FENCED');
        expect(await store.sMembers(keys.alive).then((alive) => alive.sort())).toEqual([
          'u1',
          'u2',
        ]);
        expect(await store.hGetAll(keys.eliminated)).toEqual({});
      });
    });

    describe('raiseMark', () => {
      it('1 when raised, 0 when not higher or the message before is not applied', async () => {
        const raise = (...args: string[]) => run(raiseMark, [k.mark], args);
        expect(await raise('3')).toBe(1);
        expect(await raise('3')).toBe(0);
        expect(await raise('2')).toBe(0);
        expect(await raise('9', '5')).toBe(0);
        expect(await store.get(k.mark)).toBe('3');
        expect(await raise('9', '3')).toBe(1);
        expect(await raise('10', '')).toBe(1);
        expect(await store.get(k.mark)).toBe('10');
      });
    });
  });
}
