import type { Appended, EventBus } from '@underdog/bus';
import { withTimeout, type Logger } from '@underdog/kit';
import { votesKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import {
  GameVoteEventSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type VoteCast,
} from '@underdog/proto';

/** An admitted vote, as it goes on `game.votes` (a `VoteCast`, cast at epoch ms `castAt`). */
export type VoteToProduce = Omit<VoteCast, '$typeName' | '$unknown' | 'castAt'> & {
  tournamentId: string;
  castAt: number;
  /** The player's vote slot (docs/adr/0012): its message key, hence its partition. */
  slot: { slot: number; slots: number };
};

/**
 * Produces an admitted vote to `game.votes` (acks from all in-sync replicas) within `timeoutMs`:
 * where it was appended. Undefined when it failed or took longer: it may still land (the producer
 * retries), and settling withdraws it unless already counted.
 */
export async function produceVote(
  deps: { bus: EventBus; logger: Logger },
  vote: VoteToProduce,
  timeoutMs: number,
): Promise<Appended | undefined> {
  const { tournamentId, castAt, slot, ...cast } = vote;
  const { voteId } = cast;
  const event = create(GameVoteEventSchema, {
    tournamentId,
    kind: {
      case: 'voteCast',
      value: { ...cast, castAt: timestampFromDate(new Date(castAt)) },
    },
  });
  try {
    const [appended] = await withTimeout(
      deps.bus.publish(topics.gameVotes.name, [
        encodeEvent(GameVoteEventSchema, event, {
          key: votesKey(tournamentId, slot.slot, slot.slots),
          id: voteId,
        }),
      ]),
      timeoutMs,
      'producing the vote to game.votes',
    );
    return appended;
  } catch (error) {
    deps.logger.warn({ err: error, tournamentId, voteId }, 'vote not produced');
    return undefined;
  }
}
