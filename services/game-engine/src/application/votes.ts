import type { BusMessage } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { slotOf } from '@underdog/live-game';
import { GameVoteEventSchema, fromBinary, timestampDate } from '@underdog/proto';
import type { LiveGames, VoteToApply } from '../adapters/live-games';
import { VOTES_PER_APPLY, type VoteBatches } from '../adapters/vote-batches';
import type { EngineMetrics } from '../metrics';

/**
 * One script call: votes of one vote slot of one tournament in partition order, at most
 * `VOTES_PER_APPLY`.
 */
interface Call {
  tournamentId: string;
  slot: number;
  slots: number;
  votes: VoteToApply[];
  /** The offset of its first vote: calls are sent in this order. */
  first: bigint;
}

/**
 * Applies a batch of `game.votes` (one partition, in order): the batch's votes grouped by
 * tournament and vote slot (docs/adr/0012: a slot's keys share one hash tag; with K slots a
 * tournament's votes come on up to K partitions, each applied by the engine that owns it), each
 * group in calls of at most `VOTES_PER_APPLY` votes, each call one atomic step
 * that applies its votes (each as alone: one reply per vote) and raises the partition's applied
 * mark, which a round waits on before it resolves and from which this consumer resumes
 * (`storedOffsets`), so a store that lost writes gets exactly the lost votes again. A redelivered
 * vote is refused by its id, so replays never change a tally (docs/adr/0009).
 *
 * Which failures cause redelivery: any call the store refuses or does not answer (connection
 * lost, a failover's READONLY, a script error) rejects the batch, and the bus delivers it again
 * from the last commit; the mark never passes that call's votes, so after a crash the consumer
 * resumes before them too. A message that holds no vote (empty, unreadable — logged —, another
 * event) is passed, the mark raised past it: delivering it again would not make it a vote.
 */
export class VotesApplier {
  /** Each game's vote slots, fixed once it exists (a handful of live games at a time). */
  private readonly slotsOf = new Map<string, number>();

  constructor(
    private readonly live: LiveGames,
    private readonly batches: VoteBatches,
    private readonly metrics: EngineMetrics,
    private readonly logger: Logger,
  ) {}

  /** Where this consumer resumes partition P: the applied mark Redis holds ('0' when none). */
  async storedOffset(partition: number): Promise<string> {
    return String(await this.live.votesApplied(partition));
  }

  async handleBatch(batch: BusMessage[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (!last) return;
    const partition = last.partition;
    const end = BigInt(last.offset) + 1n;
    const calls = await this.calls(batch);
    if (calls.length === 0) {
      await this.live.raiseVotesApplied({ partition, next: String(end), after: '' });
      return;
    }
    // In the order of their first votes, sent together on one connection, so applied in order.
    // Once a call is applied, every message before the next call's first vote is: the mark goes
    // there, and only if the call before raised it to where this one starts (so a failed call is
    // never jumped over: the marks are distinct and increasing).
    const marks = calls.map((_, i) => String(calls[i + 1]?.first ?? end));
    const replies = await Promise.all(
      calls.map((call, i) =>
        this.batches.applyVotes(
          call.tournamentId,
          call.votes,
          {
            partition,
            next: marks[i]!,
            after: i === 0 ? '' : marks[i - 1]!,
          },
          { slot: call.slot, slots: call.slots },
        ),
      ),
    );
    let counted = 0;
    for (const [i, call] of calls.entries()) {
      for (const [j, reply] of (replies[i] ?? []).entries()) {
        if (reply === 'COUNTED') counted += 1;
        else if (reply !== 'DUPLICATE') {
          const voteId = call.votes[j]?.voteId;
          this.logger.warn({ tournamentId: call.tournamentId, voteId, reply }, 'vote not counted');
        }
      }
    }
    if (counted > 0) this.metrics.votesCounted.inc(counted);
  }

  /**
   * The batch's votes by tournament and vote slot (the player's, `slotOf` the user id: never the
   * message key, which only spreads them over partitions), in partition order within each, cut
   * every `VOTES_PER_APPLY`; the calls ordered by their first vote's offset.
   */
  private async calls(batch: BusMessage[]): Promise<Call[]> {
    const open = new Map<string, Call>();
    const calls: Call[] = [];
    const votes = batch.flatMap((message) => {
      const vote = this.decode(message);
      return vote === undefined ? [] : [{ vote, offset: BigInt(message.offset) }];
    });
    const slotsOf = new Map<string, number>();
    for (const tournamentId of new Set(votes.map(({ vote }) => vote.tournamentId))) {
      slotsOf.set(tournamentId, await this.voteSlots(tournamentId));
    }
    for (const { vote, offset } of votes) {
      const slots = slotsOf.get(vote.tournamentId) ?? 1;
      const slot = slotOf(vote.userId, slots);
      const group = `${vote.tournamentId}\n${slot}`;
      let call = open.get(group);
      if (!call || call.votes.length >= VOTES_PER_APPLY) {
        call = { tournamentId: vote.tournamentId, slot, slots, votes: [], first: offset };
        open.set(group, call);
        calls.push(call);
      }
      call.votes.push(vote);
    }
    return calls.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  }

  /**
   * A game's vote slots: read once it exists, then kept (fixed for the game's life). A vote for a
   * tournament with no game yet is applied as of one slot: `NO_GAME`, whatever its slot.
   */
  private async voteSlots(tournamentId: string): Promise<number> {
    const known = this.slotsOf.get(tournamentId);
    if (known !== undefined) return known;
    const slots = await this.live.voteSlots(tournamentId);
    if (slots === undefined) return 1;
    if (this.slotsOf.size >= 1_000) this.slotsOf.clear();
    this.slotsOf.set(tournamentId, slots);
    return slots;
  }

  /** The vote a message carries, or undefined when it carries none. */
  private decode(message: BusMessage): VoteToApply | undefined {
    if (message.value === null) return undefined;
    let event;
    try {
      event = fromBinary(GameVoteEventSchema, message.value);
    } catch (error) {
      this.logger.error({ err: error, offset: message.offset }, 'unreadable vote');
      return undefined;
    }
    if (event.kind.case !== 'voteCast') return undefined;
    const vote = event.kind.value;
    return {
      tournamentId: event.tournamentId,
      gameId: vote.gameId,
      voteId: vote.voteId,
      userId: vote.userId,
      username: vote.username,
      roundNumber: vote.roundNumber,
      imageId: vote.imageId,
      castAt: vote.castAt ? timestampDate(vote.castAt).getTime() : Number.MAX_SAFE_INTEGER,
      offline: false,
    };
  }
}
