import { randomUUID } from 'node:crypto';
import {
  gameKeys,
  parseVotesEnd,
  playerSlotKeys,
  settleVote,
  VOTES_CLOSING,
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
 * A round closing while its votes partition has no leader (a broker died, the election under
 * way): the capture cannot ask where the partition ends. It takes where the round's
 * acknowledged votes end — the offsets the gateways recorded as they settled them, before the
 * closing mark — and waits for those to be applied, not for the election (issue 38, `kafka`).
 */
describe('the capture of a round whose votes partition has no leader', () => {
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;
  /** The partition's leader is gone: asking where it ends fails, after a while. */
  let leaderless = false;
  /** The applier's progress held back, as a lagging consumer's would be. */
  let held = false;
  let appliedReads = 0;

  beforeEach(async () => {
    leaderless = false;
    held = false;
    appliedReads = 0;
    infra = await startInfrastructure();
    engine = await startEngine(
      infra.infrastructure,
      'engine-a',
      // No hold of the close (ADR 9, 7; close-hold.test.ts): the capture alone is tested here.
      { GAME_CAPTURE_LEADER_WAIT_MS: '200', GAME_CLOSE_HOLD_MS: '0' },
      {
        votesProgress: (real) => ({
          ...real,
          // As kafkajs does while no broker leads the partition: retries, then gives up.
          endOffset: async (partition) => {
            if (!leaderless) return real.endOffset(partition);
            await new Promise((resolve) => setTimeout(resolve, 5_000));
            throw new Error('There is no leader for this topic-partition');
          },
          applied: async (partition) => {
            appliedReads += 1;
            return held ? 0n : real.applied(partition);
          },
        }),
      },
    );
    recorder = await recordGameEvents(infra.infrastructure.bus, 'test-recorder');
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

  /** A round 1 vote on `game.votes`, settled as the gateway settles it unless `settled` is false. */
  async function vote(gameId: string, userId: string, position: number, settled = true) {
    const tournamentId = 't-elect';
    const voteId = randomUUID();
    const imageId = `round-1-image-${position}`;
    const [appended] = await infra.infrastructure.bus.publish(topics.gameVotes.name, [
      voteMessage({ tournamentId, gameId, voteId, userId, roundNumber: 1, imageId }),
    ]);
    if (!settled) return appended!;
    const slot = playerSlotKeys(tournamentId, userId, Number(testVoteSlots().GAME_VOTE_SLOTS ?? 1));
    const reply = await infra.infrastructure.store.run(
      settleVote,
      [
        gameKeys(tournamentId).state,
        slot.voteIds(1),
        slot.ballots(1),
        slot.reserved(1),
        slot.admitted(1),
        slot.acknowledged(1),
      ],
      [gameId, 1, voteId, userId, imageId, '1', appended!.partition, appended!.offset!],
    );
    expect(reply).toBe('ACKNOWLEDGED');
    return appended!;
  }

  it('closes where the acknowledged votes end, once they are applied, without the leader', async () => {
    const gameId = await startOneSecondGame(
      infra.infrastructure.bus,
      engine.app,
      recorder,
      't-elect',
      ['a', 'b', 'c'],
    );
    held = true;
    leaderless = true;
    const acknowledged = [await vote(gameId, 'a', 0), await vote(gameId, 'b', 0)];
    // Produced, never settled (its gateway died with the answer): not acknowledged.
    const unsettled = await vote(gameId, 'c', 1, false);

    let captured = '';
    await waitFor(async () => {
      const state = await engine.app.live.state('t-elect');
      captured = state?.votesEndOffset ?? '';
      return state?.phase === 'voting_ended' && captured !== '' && captured !== VOTES_CLOSING;
    }, 'the votes captured without the leader');
    // Each partition's capture: just past its last acknowledged vote, nothing for one without.
    const ends = new Map(parseVotesEnd(captured).map(({ partition, end }) => [partition, end]));
    for (const { partition, offset } of acknowledged) {
      expect(ends.get(partition)).toBeGreaterThan(BigInt(offset!));
    }
    const last = acknowledged.filter(({ partition }) => partition === unsettled.partition);
    expect(ends.get(unsettled.partition)).toBe(
      last.length > 0 ? BigInt(last[last.length - 1]!.offset!) + 1n : 0n,
    );

    // Still waiting while the acknowledged votes are not applied.
    const readsAtCapture = appliedReads;
    await waitFor(() => appliedReads >= readsAtCapture + 2, 'the runner asking the applier again');
    expect(results()).toHaveLength(0);

    held = false;
    await waitFor(() => results().length === 1, 'round 1 results');
    expect(results()[0]?.totalVotes).toBeGreaterThanOrEqual(2);
  });
});
