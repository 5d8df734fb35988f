import {
  applyVotes,
  gameKeys,
  slotKeys,
  votesProgressKey,
  VOTES_PER_APPLY,
} from '@underdog/live-game';
import type { LiveStore } from '@underdog/store';
import { storedBallotOf, type AppliedMark, type ApplyReply, type VoteToApply } from './live-games';

export { VOTES_PER_APPLY };

/**
 * The votes consumer's step on the live store: one vote slot's votes of one tournament, at most
 * `VOTES_PER_APPLY`, applied in one script call (`applyVotes` in @underdog/live-game), each as
 * `applyVote` would apply it, with the partition's applied mark raised in the same step.
 */
export class VoteBatches {
  constructor(private readonly store: LiveStore) {}

  /**
   * One reply per vote, in order. Every vote is of `tournamentId` and of its vote slot `slot`
   * (`slotOf` its user id, of the game's `slots`).
   */
  async applyVotes(
    tournamentId: string,
    votes: readonly VoteToApply[],
    mark: AppliedMark,
    slot = { slot: 0, slots: 1 },
  ): Promise<ApplyReply[]> {
    const keys = { ...gameKeys(tournamentId), ...slotKeys(tournamentId, slot.slot, slot.slots) };
    // One group of keys per round the votes name: a late vote may still carry the round before.
    const rounds = [...new Set(votes.map((vote) => vote.roundNumber))];
    return (await this.store.run(
      applyVotes,
      [
        keys.state,
        keys.alive,
        votesProgressKey(mark.partition),
        ...rounds.flatMap((round) => [
          keys.ballots(round),
          keys.tally(round),
          keys.voteIds(round),
          keys.reserved(round),
        ]),
      ],
      [
        mark.next,
        mark.after,
        ...votes.flatMap((vote) => {
          const ballot = storedBallotOf(vote);
          return [
            vote.gameId,
            vote.voteId,
            vote.userId,
            vote.roundNumber,
            vote.imageId,
            vote.castAt,
            JSON.stringify(ballot),
            rounds.indexOf(vote.roundNumber) + 1,
          ];
        }),
      ],
    )) as ApplyReply[];
  }
}
