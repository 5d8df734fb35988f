import type { Appended, EventBus } from '@underdog/bus';
import { withTimeout, type Logger } from '@underdog/kit';
import { votesKey } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import {
  EventHeader,
  VoteCastSchema,
  encodeGameVoteEvent,
  type EncodedEvent,
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
  const { tournamentId, voteId, slot } = vote;
  // The record encodeEvent makes, with the bytes of the vote's own codec (proto/README.md): the
  // reflective toBinary cost several µs per vote in a process that encodes every message type.
  const record: EncodedEvent = {
    key: votesKey(tournamentId, slot.slot, slot.slots),
    value: encodeGameVoteEvent(vote),
    headers: { [EventHeader.type]: VoteCastSchema.typeName, [EventHeader.id]: voteId },
  };
  try {
    const [appended] = await withTimeout(
      deps.bus.publish(topics.gameVotes.name, [record]),
      timeoutMs,
      'producing the vote to game.votes',
    );
    return appended;
  } catch (error) {
    deps.logger.warn({ err: error, tournamentId, voteId }, 'vote not produced');
    return undefined;
  }
}
