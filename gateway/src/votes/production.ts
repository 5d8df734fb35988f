import type { EventBus } from '@underdog/bus';
import { withTimeout, type Logger } from '@underdog/kit';
import { votesKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, create, encodeEvent, timestampFromDate } from '@underdog/proto';

/** An admitted vote, as it goes on `game.votes`. */
export interface VoteToProduce {
  tournamentId: string;
  voteId: string;
  gameId: string;
  userId: string;
  username: string;
  roundNumber: number;
  imageId: string;
  castAt: number;
  deviceId: string;
  /** The player's vote slot (docs/adr/0012): its message key, hence its partition. */
  slot: { slot: number; slots: number };
}

/**
 * Produces an admitted vote to `game.votes` (acks from all in-sync replicas) within `timeoutMs`.
 * False when it failed or took longer: it may still land (the producer retries), and settling
 * withdraws it unless already counted.
 */
export async function produceVote(
  deps: { bus: EventBus; logger: Logger },
  vote: VoteToProduce,
  timeoutMs: number,
): Promise<boolean> {
  const { tournamentId, voteId, slot } = vote;
  const event = create(GameVoteEventSchema, {
    tournamentId,
    kind: {
      case: 'voteCast',
      value: {
        voteId,
        gameId: vote.gameId,
        userId: vote.userId,
        username: vote.username,
        roundNumber: vote.roundNumber,
        imageId: vote.imageId,
        castAt: timestampFromDate(new Date(vote.castAt)),
        deviceId: vote.deviceId,
      },
    },
  });
  try {
    await withTimeout(
      deps.bus.publish(topics.gameVotes.name, [
        encodeEvent(GameVoteEventSchema, event, {
          key: votesKey(tournamentId, slot.slot, slot.slots),
          id: voteId,
        }),
      ]),
      timeoutMs,
      'producing the vote to game.votes',
    );
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, tournamentId, voteId }, 'vote not produced');
    return false;
  }
}
