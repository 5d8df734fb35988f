import type { BusMessage, Poison } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { slotOf } from '@underdog/live-game';
import { decodeGameVoteEvent, timestampDate } from '@underdog/proto';
import { LiveStoreError } from '@underdog/store';
import type { ApplyReply, LiveGames, VoteToApply } from '../adapters/live-games';
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
  /** Each vote's message, in the order of `votes`. */
  messages: BusMessage[];
  /** The offset of its first vote: calls are sent in this order. */
  first: bigint;
}

/** A message's vote, a poison message's fault, or nothing to apply (another event, a tombstone). */
type Decoded = { vote: VoteToApply } | { poison: Omit<Poison, 'message'> } | undefined;

/**
 * A refusal of the store that the same votes would get again, whatever the retries: a script's
 * runtime error (Redis answers `ERR …`, e.g. a vote field the script cannot read). Everything
 * else — a lost connection, a timeout, READONLY during a failover, LOADING, MISCONF, BUSY, OOM —
 * passes, and the batch is delivered again.
 */
const isDeterministic = (error: unknown): error is LiveStoreError =>
  error instanceof LiveStoreError && error.code === 'ERR';

/** A vote's fate in a batch: the script's reply, or parked (poison). */
type Reply = ApplyReply | 'PARKED';

/** Parks poison messages (a dead-letter topic); resolves once they are parked. */
export type ParkMessages = (poison: Poison[]) => Promise<void>;

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
 * lost, a failover's READONLY, a timeout) rejects the batch, and the bus delivers it again
 * from the last commit; the mark never passes that call's votes, so after a crash the consumer
 * resumes before them too. A message that holds no vote (a tombstone, another event) is passed,
 * the mark raised past it: delivering it again would not make it a vote.
 *
 * Poison (issue 38): a message no retry will ever apply — unreadable bytes, a vote with a field
 * missing or out of range, or a vote the apply script fails on (`ERR`: the same every time) — is
 * parked in `game.votes.dead-letter` (`park`, counted in `underdog_votes_parked_total`) and then
 * passed, so it never stalls its partition and the votes after it still apply. A script error
 * sends the batch's votes one at a time, each with its own mark, so only the votes that fail
 * alone are parked. Without `park` (unit tests, benches) poison is logged and passed.
 */
export class VotesApplier {
  /** Each game's vote slots, fixed once it exists (a handful of live games at a time). */
  private readonly slotsOf = new Map<string, number>();

  constructor(
    private readonly live: LiveGames,
    private readonly batches: VoteBatches,
    private readonly metrics: EngineMetrics,
    private readonly logger: Logger,
    private readonly park?: ParkMessages,
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
    const { calls, poison } = await this.calls(batch);
    // Parked before anything passes them: a failed park delivers the batch again.
    await this.parkAll(poison);
    if (calls.length === 0) {
      await this.live.raiseVotesApplied({ partition, next: String(end), after: '' });
      return;
    }
    // In the order of their first votes, sent together on one connection, so applied in order.
    // Once a call is applied, every message before the next call's first vote is: the mark goes
    // there, and only if the call before raised it to where this one starts (so a failed call is
    // never jumped over: the marks are distinct and increasing).
    const marks = calls.map((_, i) => String(calls[i + 1]?.first ?? end));
    let replies: Reply[][];
    try {
      replies = await Promise.all(
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
    } catch (error) {
      if (!isDeterministic(error)) throw error;
      this.logger.warn(
        { err: error, partition },
        'a votes call failed: applying one vote at a time',
      );
      replies = await this.oneByOne(calls, partition);
      await this.live.raiseVotesApplied({ partition, next: String(end), after: '' });
    }
    let counted = 0;
    for (const [i, call] of calls.entries()) {
      for (const [j, reply] of (replies[i] ?? []).entries()) {
        if (reply === 'COUNTED') counted += 1;
        else if (reply !== 'DUPLICATE' && reply !== 'PARKED') {
          const voteId = call.votes[j]?.voteId;
          this.logger.warn({ tournamentId: call.tournamentId, voteId, reply }, 'vote not counted');
        }
      }
    }
    if (counted > 0) this.metrics.votesCounted.inc(counted);
  }

  /**
   * After a call failed with a script error: every vote alone, in partition order, each raising
   * the mark past itself once applied; a vote the script fails on alone is parked and the mark
   * raised past it. A failure of another kind rejects (the batch is delivered again). Replies in
   * the shape of `calls` (a parked vote's reply is 'PARKED').
   */
  private async oneByOne(calls: Call[], partition: number): Promise<Reply[][]> {
    const replies: Reply[][] = calls.map(() => []);
    const order = calls
      .flatMap((call, i) =>
        call.votes.map((vote, j) => ({ call, i, vote, message: call.messages[j]! })),
      )
      .sort((a, b) => (BigInt(a.message.offset) < BigInt(b.message.offset) ? -1 : 1));
    for (const { call, i, vote, message } of order) {
      const next = String(BigInt(message.offset) + 1n);
      try {
        const [reply] = await this.batches.applyVotes(
          call.tournamentId,
          [vote],
          { partition, next, after: '' },
          { slot: call.slot, slots: call.slots },
        );
        replies[i]!.push(reply!);
      } catch (error) {
        if (!isDeterministic(error)) throw error;
        await this.parkAll([{ message, reason: 'script_error', detail: error.message }]);
        await this.live.raiseVotesApplied({ partition, next, after: '' });
        replies[i]!.push('PARKED');
      }
    }
    return replies;
  }

  /** Parks poison messages (or, without a dead-letter topic, logs them), counted by reason. */
  private async parkAll(poison: Poison[]): Promise<void> {
    if (poison.length === 0) return;
    for (const { message, reason, detail } of poison) {
      this.logger.error(
        { partition: message.partition, offset: message.offset, reason, detail },
        this.park ? 'poison vote message parked' : 'poison vote message passed',
      );
    }
    await this.park?.(poison);
    for (const { reason } of poison) this.metrics.votesParked.inc({ reason });
  }

  /**
   * The batch's votes by tournament and vote slot (the player's, `slotOf` the user id: never the
   * message key, which only spreads them over partitions), in partition order within each, cut
   * every `VOTES_PER_APPLY`; the calls ordered by their first vote's offset.
   */
  private async calls(batch: BusMessage[]): Promise<{ calls: Call[]; poison: Poison[] }> {
    const open = new Map<string, Call>();
    const calls: Call[] = [];
    const poison: Poison[] = [];
    const votes = batch.flatMap((message) => {
      const decoded = this.decode(message);
      if (decoded === undefined) return [];
      if ('poison' in decoded) {
        poison.push({ message, ...decoded.poison });
        return [];
      }
      return [{ vote: decoded.vote, message, offset: BigInt(message.offset) }];
    });
    const slotsOf = new Map<string, number>();
    for (const tournamentId of new Set(votes.map(({ vote }) => vote.tournamentId))) {
      slotsOf.set(tournamentId, await this.voteSlots(tournamentId));
    }
    for (const { vote, message, offset } of votes) {
      const slots = slotsOf.get(vote.tournamentId) ?? 1;
      const slot = slotOf(vote.userId, slots);
      const group = `${vote.tournamentId}\n${slot}`;
      let call = open.get(group);
      if (!call || call.votes.length >= VOTES_PER_APPLY) {
        call = {
          tournamentId: vote.tournamentId,
          slot,
          slots,
          votes: [],
          messages: [],
          first: offset,
        };
        open.set(group, call);
        calls.push(call);
      }
      call.votes.push(vote);
      call.messages.push(message);
    }
    calls.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    return { calls, poison };
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

  /**
   * The vote a message carries; poison when it is unreadable or its vote is not one the gateway
   * could have produced (an id missing, a round below 1, no readable cast time); undefined when
   * it carries none.
   */
  private decode(message: BusMessage): Decoded {
    if (message.value === null) return undefined;
    let event;
    try {
      // fromBinary's result and errors, without its reflection (a decode per vote: proto/README.md).
      event = decodeGameVoteEvent(message.value);
    } catch (error) {
      return { poison: { reason: 'unreadable', detail: String(error) } };
    }
    if (event.kind.case !== 'voteCast') return undefined;
    const vote = event.kind.value;
    const castAt = vote.castAt ? timestampDate(vote.castAt).getTime() : Number.MAX_SAFE_INTEGER;
    const missing = (
      [
        ['tournamentId', event.tournamentId],
        ['gameId', vote.gameId],
        ['voteId', vote.voteId],
        ['userId', vote.userId],
        ['imageId', vote.imageId],
      ] as const
    )
      .filter(([, value]) => value === '')
      .map(([name]) => name);
    const wrong = [
      ...missing.map((name) => `no ${name}`),
      ...(Number.isSafeInteger(vote.roundNumber) && vote.roundNumber >= 1
        ? []
        : [`round ${vote.roundNumber}`]),
      ...(Number.isFinite(castAt) ? [] : ['an unreadable cast time']),
    ];
    if (wrong.length > 0) return { poison: { reason: 'invalid', detail: wrong.join(', ') } };
    return {
      vote: {
        tournamentId: event.tournamentId,
        gameId: vote.gameId,
        voteId: vote.voteId,
        userId: vote.userId,
        username: vote.username,
        roundNumber: vote.roundNumber,
        imageId: vote.imageId,
        castAt,
        offline: false,
      },
    };
  }
}
