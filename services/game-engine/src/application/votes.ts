import type { BusMessage } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { GameVoteEventSchema, fromBinary, timestampDate } from '@underdog/proto';
import type { AppliedMark, LiveGames } from '../adapters/live-games';
import type { EngineMetrics } from '../metrics';

/**
 * Applies a batch of `game.votes` (one partition, in order): each vote in one atomic step that
 * also raises the partition's applied mark, which a round waits on before it resolves and from
 * which this consumer resumes (`storedOffsets`), so a store that lost writes gets exactly the
 * lost votes again. A redelivered vote is refused by its id, so replays never change a tally.
 */
export class VotesApplier {
  constructor(
    private readonly live: LiveGames,
    private readonly metrics: EngineMetrics,
    private readonly logger: Logger,
  ) {}

  /** Where this consumer resumes partition P: the applied mark Redis holds ('0' when none). */
  async storedOffset(partition: number): Promise<string> {
    return String(await this.live.votesApplied(partition));
  }

  async handleBatch(batch: BusMessage[]): Promise<void> {
    // Sent together on one connection, so applied in order; each raises the mark only if the
    // one before it did.
    const replies = await Promise.all(
      batch.map((message, i) => {
        const previous = batch[i - 1];
        return this.apply(message, {
          partition: message.partition,
          next: String(BigInt(message.offset) + 1n),
          after: previous ? String(BigInt(previous.offset) + 1n) : '',
        });
      }),
    );
    const counted = replies.filter((reply) => reply === 'COUNTED').length;
    if (counted > 0) this.metrics.votesCounted.inc(counted);
  }

  private async apply(message: BusMessage, mark: AppliedMark): Promise<string> {
    const event = this.decode(message);
    if (typeof event === 'string') {
      await this.live.raiseVotesApplied(mark);
      return event;
    }
    const vote = event.kind.value;
    const reply = await this.live.applyVote(
      {
        tournamentId: event.tournamentId,
        gameId: vote.gameId,
        voteId: vote.voteId,
        userId: vote.userId,
        username: vote.username,
        roundNumber: vote.roundNumber,
        imageId: vote.imageId,
        castAt: vote.castAt ? timestampDate(vote.castAt).getTime() : Number.MAX_SAFE_INTEGER,
        offline: false,
      },
      mark,
    );
    if (reply !== 'COUNTED' && reply !== 'DUPLICATE') {
      this.logger.warn(
        { tournamentId: event.tournamentId, voteId: vote.voteId, reply },
        'vote not counted',
      );
    }
    return reply;
  }

  /** The vote a message carries, or why it carries none. */
  private decode(message: BusMessage) {
    if (message.value === null) return 'EMPTY';
    let event;
    try {
      event = fromBinary(GameVoteEventSchema, message.value);
    } catch (error) {
      this.logger.error({ err: error, offset: message.offset }, 'unreadable vote');
      return 'UNREADABLE';
    }
    if (event.kind.case !== 'voteCast') return 'IGNORED';
    return { tournamentId: event.tournamentId, kind: event.kind };
  }
}
