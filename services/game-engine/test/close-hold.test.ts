import { randomUUID } from 'node:crypto';
import {
  admitVote,
  gameKeys,
  playerSlotKeys,
  settleVote,
  type GameState,
} from '@underdog/live-game';
import { topics } from '@underdog/platform';
import {
  recordGameEvents,
  startEngine,
  startInfrastructure,
  startOneSecondGame,
  testVoteSlots,
  voteMessage,
  waitFor,
  type TestEngine,
} from './support';

/**
 * A round's close held for votes cast in time that could not be recorded yet (docs/adr/0009, 7):
 * a player whose vote's produce failed before the deadline (`held` by the gateway's settlement),
 * a votes partition without a leader. The close waits for them, within `GAME_CLOSE_HOLD_MS`, and
 * the held player's resend past the deadline counts. The gateway's steps are its scripts, run
 * here as it runs them.
 */
describe("a round's close held for votes cast in time", () => {
  const tournamentId = 't-hold';
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;
  /** The votes partitions' leader is gone: asking where one ends fails, after a while. */
  let leaderless = false;
  /** How long a question to a gone leader takes to fail. */
  let leaderlessFailsAfterMs = 1_000;

  async function start(env: Record<string, string>) {
    infra = await startInfrastructure();
    engine = await startEngine(
      infra.infrastructure,
      'engine-a',
      { GAME_CAPTURE_LEADER_WAIT_MS: '200', GAME_CLOSE_HOLD_SETTLE_MS: '300', ...env },
      {
        votesProgress: (real) => ({
          ...real,
          endOffset: async (partition) => {
            if (!leaderless) return real.endOffset(partition);
            await new Promise((resolve) => setTimeout(resolve, leaderlessFailsAfterMs));
            throw new Error('There is no leader for this topic-partition');
          },
        }),
      },
    );
    recorder = await recordGameEvents(infra.infrastructure.bus, 'test-recorder');
    return startOneSecondGame(infra.infrastructure.bus, engine.app, recorder, tournamentId, [
      'a',
      'b',
      'c',
    ]);
  }

  beforeEach(() => {
    leaderless = false;
    leaderlessFailsAfterMs = 1_000;
  });

  afterEach(async () => {
    await recorder.stop();
    await engine.group.stop();
    await infra.stop();
  });

  const results = () =>
    recorder.events.flatMap((event) =>
      event.kind.case === 'roundResults' && event.kind.value.roundNumber === 1
        ? [event.kind.value]
        : [],
    );
  const state = async (): Promise<GameState> => (await engine.app.live.state(tournamentId))!;
  const slots = () => Number(testVoteSlots().GAME_VOTE_SLOTS ?? 1);
  const image = 'round-1-image-2';

  /** The gateway's admission of `userId`'s vote at `now` (its clock). */
  function admit(userId: string, now: number, voteId: string) {
    const slot = playerSlotKeys(tournamentId, userId, slots());
    const keys = gameKeys(tournamentId);
    return infra.infrastructure.store.run(
      admitVote,
      [
        keys.state,
        keys.players,
        keys.alive,
        keys.devices,
        slot.reserved(1),
        slot.ballots(1),
        slot.admitted(1),
        slot.held(1),
      ],
      [userId, 1, image, now, '', voteId],
    );
  }

  /** The gateway's settlement; `produced`: where the vote was appended, if it was. */
  function settle(
    gameId: string,
    userId: string,
    voteId: string,
    produced?: { partition: number; offset?: string },
  ) {
    const slot = playerSlotKeys(tournamentId, userId, slots());
    return infra.infrastructure.store.run(
      settleVote,
      [
        gameKeys(tournamentId).state,
        slot.voteIds(1),
        slot.ballots(1),
        slot.reserved(1),
        slot.admitted(1),
        slot.acknowledged(1),
        slot.held(1),
      ],
      [
        gameId,
        1,
        voteId,
        userId,
        image,
        produced ? '1' : '0',
        ...(produced ? [produced.partition, produced.offset ?? ''] : []),
      ],
    );
  }

  /** Player `a`'s vote admitted before the deadline, its produce failed: held. */
  async function heldVote(gameId: string) {
    const { votingEndsAt } = await state();
    const castAt = votingEndsAt - 100;
    expect(await admit('a', castAt, 'v1')).toBe(`OK:${votingEndsAt}:${gameId}`);
    expect(await settle(gameId, 'a', 'v1')).toBe('WITHDRAWN');
    return { votingEndsAt, castAt };
  }

  /** Player `a`'s resend `v2` on `game.votes`, cast as its first attempt was: where it landed. */
  async function produceResend(gameId: string, castAt: number) {
    const [appended] = await infra.infrastructure.bus.publish(topics.gameVotes.name, [
      voteMessage({
        tournamentId,
        gameId,
        voteId: 'v2',
        userId: 'a',
        roundNumber: 1,
        imageId: image,
        castAt: new Date(castAt),
      }),
    ]);
    return appended!;
  }

  /** Waits until `ms` past the round's grace, then says whether its close is still held. */
  async function heldAfter(votingEndsAt: number, ms: number) {
    await new Promise((resolve) => setTimeout(resolve, votingEndsAt + 1_000 + ms - Date.now()));
    const now = await state();
    return { phase: now.phase, votesEndOffset: now.votesEndOffset, results: results().length };
  }
  const stillHeld = { phase: 'voting_ended', votesEndOffset: '', results: 0 };

  it("waits for a held player's resend past the deadline, which counts as cast in time", async () => {
    const gameId = await start({ GAME_CLOSE_HOLD_MS: '20000' });
    const { votingEndsAt, castAt } = await heldVote(gameId);
    expect(await heldAfter(votingEndsAt, 1_500)).toEqual(stillHeld);

    // The player's client sends the vote again: admitted as of its first cast, produced, settled.
    expect(await admit('a', Date.now(), 'v2')).toBe(`HELD:${castAt}:${votingEndsAt}:${gameId}`);
    const appended = await produceResend(gameId, castAt);
    expect(await settle(gameId, 'a', 'v2', appended)).toBe('ACKNOWLEDGED');

    await waitFor(() => results().length === 1, 'round 1 results');
    expect(results()[0]?.totalVotes).toBe(1);
  });

  it('does not wait for a held player the engine counted, however the ballot came (its settlement never ran)', async () => {
    // A hold longer than the wait for the results below: only a close that stops holding passes.
    const gameId = await start({ GAME_CLOSE_HOLD_MS: '60000' });
    const { votingEndsAt, castAt } = await heldVote(gameId);
    // The resend admitted and produced; its gateway died before settling it.
    expect(await admit('a', votingEndsAt + 200, 'v2')).toMatch(/^HELD:/);
    await produceResend(gameId, castAt);
    await waitFor(() => results().length === 1, 'round 1 results without waiting for the hold');
    expect(results()[0]?.totalVotes).toBe(1);
  });

  it('closes without the held vote once the hold is over (its client never sent it again)', async () => {
    const gameId = await start({ GAME_CLOSE_HOLD_MS: '1500' });
    const { votingEndsAt } = await heldVote(gameId);
    expect(await heldAfter(votingEndsAt, 700)).toEqual(stillHeld);

    await waitFor(() => results().length === 1, 'round 1 results after the hold');
    expect(results()[0]?.totalVotes).toBe(0);
    // Too late now: the round is closing or closed.
    expect(await admit('a', Date.now(), randomUUID())).not.toMatch(/^HELD:/);
  });

  it('waits while a votes partition has no leader, then for a produce in flight, then closes', async () => {
    leaderless = true;
    await start({ GAME_CLOSE_HOLD_MS: '20000' });
    const { votingEndsAt } = await state();
    expect(await heldAfter(votingEndsAt, 2_500)).toEqual(stillHeld);

    leaderless = false;
    await waitFor(() => results().length === 1, 'round 1 results once the leader is back');
    expect(results()[0]?.totalVotes).toBe(0);
  });

  it('ends at its bound when a leader never answers, and the capture does not wait for it again', async () => {
    leaderless = true;
    leaderlessFailsAfterMs = 6_000;
    // The leader wait (4 s) is longer than the hold (1 s). A probe that ran its whole wait would
    // take the close 4 s past the hold, and a capture that asked the leader again 4 s more.
    await start({ GAME_CLOSE_HOLD_MS: '1000', GAME_CAPTURE_LEADER_WAIT_MS: '4000' });
    const { votingEndsAt } = await state();
    await waitFor(() => results().length === 1, 'round 1 results once the hold is over', 15_000);
    const closedAfterGraceMs = Date.now() - (votingEndsAt + 1_000);
    // The hold (1 s), then the capture where the acknowledged votes end (none), then the tally.
    expect(closedAfterGraceMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterGraceMs).toBeLessThan(2_500);
    expect(results()[0]?.totalVotes).toBe(0);
  });
});
