import {
  formatVotesEnd,
  VOTES_CLOSING,
  votesKey,
  type GameState,
  type VotesEnd,
} from '@underdog/live-game';
import {
  captureSettled,
  votesSettled,
  VOTES_WAIT_POLL_MS,
  type LoopAction,
} from '../../domain/round-loop';
import { closeHold, withinLeaderWait } from './close-hold';
import type { Step, StepContext } from './context';
import { tally } from './tally';

/**
 * After the grace: mark the round's votes closing, capture the end of each `game.votes` partition
 * the game's vote slots use (one with K = 1; up to K, docs/adr/0012), then wait until the engine
 * has applied everything before each of them. The
 * gateway acknowledges a vote only if its produce completed before the closing mark (or the
 * engine counted it already: `settleVote`), so an acknowledged vote is in the tally. A partition
 * whose leader does not say where it ends in time is captured where the round's acknowledged
 * votes end (`captureEnd`). Before the mark, the close is held while votes cast in time are still
 * to be recorded (`closeHold`, ADR 9, 7).
 *
 * Usually nothing lags by then (votes stop with the grace): the round then goes from the
 * capture to its tally in this one step. Each further step takes the lease and reads the state
 * again, and a close is the moment every player waits for (docs/benchmarks.md, the sixth pass).
 */
export async function captureVotes(
  game: StepContext,
  state: GameState,
  { markClosing, hold }: Extract<LoopAction, { kind: 'captureVotes' }>,
): Promise<Step> {
  const { votes } = game.deps;
  const expected = { phase: 'voting_ended', round: state.round } as const;
  const partitions = await votesPartitions(game, state);
  let leaderless: readonly number[] = [];
  if (markClosing) {
    const verdict = await closeHold(game, state, partitions, hold);
    if (typeof verdict === 'number') return verdict;
    leaderless = verdict;
  }
  // Closing first, then the capture: a vote the gateway settles after this is withdrawn
  // unless already counted, so none it acknowledges can land after the capture (ADR 9).
  if (markClosing && !(await game.advance(expected, { votesEndOffset: VOTES_CLOSING }))) {
    return 0;
  }
  const ends = await captureEnds(game, state, partitions, leaderless);
  const votesEndOffset = formatVotesEnd(ends);
  const applied = await Promise.all(ends.map(({ partition }) => votes.applied(partition)));
  if (!ends.every(({ end }, i) => captureSettled(applied[i]!, end))) {
    await game.advance(expected, { votesEndOffset });
    return 0;
  }
  const moved = await game.advance(expected, { votesEndOffset, phase: 'tallying' });
  if (!moved) return 0;
  game.votesWait.settled(state.round, 0);
  return tally(game, { ...state, votesEndOffset, phase: 'tallying' });
}

/**
 * The `game.votes` partitions a game's vote slots use, each once (slots may share a partition),
 * in partition order.
 */
async function votesPartitions(game: StepContext, state: GameState): Promise<number[]> {
  const { voteSlots: slots } = state;
  const partitions = new Set<number>();
  for (let slot = 0; slot < slots; slot++) {
    partitions.add(await game.deps.votes.partitionOf(votesKey(game.tournamentId, slot, slots)));
  }
  return [...partitions].sort((a, b) => a - b);
}

/**
 * The end of every `game.votes` partition the game's votes use, in partition order;
 * `leaderless`: those the close's hold just found without a leader, not asked again.
 */
async function captureEnds(
  game: StepContext,
  state: GameState,
  partitions: readonly number[],
  leaderless: readonly number[],
): Promise<VotesEnd[]> {
  const { voteSlots: slots, round } = state;
  const acknowledged = await game.deps.live.acknowledgedEnds(game.tournamentId, round, slots);
  return Promise.all(
    partitions.map(async (partition) => ({
      partition,
      end: await captureEnd(
        game,
        partition,
        acknowledged.get(partition),
        leaderless.includes(partition),
      ),
    })),
  );
}

/**
 * One partition's captured end: where its leader says it ends — past every vote appended before
 * the closing mark, acknowledged or not — or, when the leader has not answered within
 * `captureLeaderWaitMs` (a broker died and its partitions wait for an election), where the
 * round's acknowledged votes end (`acknowledged`; none acknowledged: nothing to wait for). The
 * gateways recorded those offsets as they settled the votes, each before the closing mark, so
 * every acknowledged vote is still before the capture; the close then waits on no election, only
 * on the consumer applying what it was acknowledged. A vote acknowledged without its offset
 * (`unknown`) leaves only the leader to ask, for as long as it takes. `knownLeaderless`: the
 * close's hold, just ended at its bound, found this partition without a leader — taken where
 * its acknowledged votes end without waiting for the leader again.
 */
async function captureEnd(
  game: StepContext,
  partition: number,
  acknowledged: bigint | 'unknown' | undefined,
  knownLeaderless: boolean,
): Promise<bigint> {
  const fromLeader = () => game.deps.votes.endOffset(partition).then((end) => BigInt(end));
  if (acknowledged === 'unknown') return fromLeader();
  const answered = knownLeaderless
    ? new Error("the close's hold found no leader")
    : await withinLeaderWait(game, fromLeader());
  if (typeof answered === 'bigint') return answered;
  const end = acknowledged ?? 0n;
  game.log.warn(
    { partition, end: String(end), err: answered },
    "a votes partition's leader did not say where it ends in time: the round's capture is where its acknowledged votes end",
  );
  return end;
}

/**
 * A lagging partition whose applied mark stands still (`RunnerDependencies.votesStandStillMs`):
 * its consumer was killed or frozen, and its group hands the partition over only after the
 * consumer's session (the chart's 10 s). The close does not wait for that: it reads the
 * partition's votes from the mark to the captured end itself and applies them, each once by its
 * id (ADR 9), in the background while it goes on looking at the marks.
 */
function applyBehindIfStill(game: StepContext, { partition, end }: VotesEnd, applied: bigint) {
  const { votes, votesStandStillMs } = game.deps;
  if (!game.votesWait.standsStill(partition, applied, game.now(), votesStandStillMs)) return;
  void votes
    .applyBehind(partition, applied, end)
    .catch((error: unknown) =>
      game.log.warn({ err: error, partition }, 'the close could not apply the votes itself'),
    )
    .finally(() => game.votesWait.readBehindDone(partition));
}

/**
 * The votes captured: look again shortly until every one before the captured end is applied,
 * then tally. However long that takes: each was acknowledged to its player, and a round that
 * resolved without them would drop them (ADR 9). A consumer that stalls, a rebalance after a
 * frozen engine's session, a backlog: the round waits, says so now and then, and is measured.
 */
export async function awaitVotes(
  game: StepContext,
  state: GameState,
  action: Extract<LoopAction, { kind: 'awaitVotes' }>,
  keep: () => void,
): Promise<Step> {
  const applied = await Promise.all(
    action.ends.map(({ partition }) => game.deps.votes.applied(partition)),
  );
  keep();
  const lagging = action.ends.findIndex((end, i) => votesSettled(applied[i]!, end) === 'wait');
  if (lagging >= 0) {
    for (const [i, end] of action.ends.entries()) {
      if (votesSettled(applied[i]!, end) === 'wait') applyBehindIfStill(game, end, applied[i]!);
    }
    game.votesWait.lagging(state.round, action.waitedMs, {
      partition: String(action.ends[lagging]!.partition),
      end: String(action.ends[lagging]!.end),
      applied: String(applied[lagging]),
    });
    return VOTES_WAIT_POLL_MS;
  }
  const moved = await game.advance(
    { phase: 'voting_ended', round: state.round },
    { phase: 'tallying' },
  );
  if (!moved) {
    game.votesWait.end();
    return 0;
  }
  game.votesWait.settled(state.round, action.waitedMs);
  return tally(game, { ...state, phase: 'tallying' });
}
