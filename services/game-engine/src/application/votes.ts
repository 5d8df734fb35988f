import type { BusMessage } from '@underdog/bus';
import type { Logger } from '@underdog/kit';
import { GameVoteEventSchema, fromBinary, timestampDate } from '@underdog/proto';
import type { LiveGames } from '../adapters/live-games';
import type { EngineMetrics } from '../metrics';

/**
 * Applies a batch of `game.votes` (one partition, in order): each vote in one atomic step, then
 * the partition's applied mark, which a round waits on before it resolves. A redelivered vote is
 * refused by its id, so replays never change a tally.
 */
export class VotesApplier {
  constructor(
    private readonly live: LiveGames,
    private readonly metrics: EngineMetrics,
    private readonly logger: Logger,
  ) {}

  async handleBatch(batch: BusMessage[]): Promise<void> {
    const last = batch.at(-1);
    if (!last) return;
    const replies = await Promise.all(batch.map((message) => this.apply(message)));
    const counted = replies.filter((reply) => reply === 'COUNTED').length;
    if (counted > 0) this.metrics.votesCounted.inc(counted);
    await this.live.raiseVotesApplied(last.partition, String(BigInt(last.offset) + 1n));
  }

  private async apply(message: BusMessage): Promise<string> {
    if (message.value === null) return 'EMPTY';
    let event;
    try {
      event = fromBinary(GameVoteEventSchema, message.value);
    } catch (error) {
      this.logger.error({ err: error, offset: message.offset }, 'unreadable vote');
      return 'UNREADABLE';
    }
    if (event.kind.case !== 'voteCast') return 'IGNORED';
    const vote = event.kind.value;
    const reply = await this.live.applyVote({
      tournamentId: event.tournamentId,
      gameId: vote.gameId,
      voteId: vote.voteId,
      userId: vote.userId,
      username: vote.username,
      roundNumber: vote.roundNumber,
      imageId: vote.imageId,
      castAt: vote.castAt ? timestampDate(vote.castAt).getTime() : Number.MAX_SAFE_INTEGER,
      offline: false,
    });
    if (reply !== 'COUNTED' && reply !== 'DUPLICATE') {
      this.logger.warn(
        { tournamentId: event.tournamentId, voteId: vote.voteId, reply },
        'vote not counted',
      );
    }
    return reply;
  }
}
