import { performance } from 'node:perf_hooks';
import type { Appended } from '@underdog/bus';
import { isStoreUnavailable, type Logger } from '@underdog/kit';
import { gameKeys, settleVote, slotKeys } from '@underdog/live-game';
import type { LiveStore } from '@underdog/store';
import { withStoreTimeout } from '../store-unavailable';
import { gameErrors, refusals } from './answers';
import { sleep, type VoteSettings } from './settings';

/** The keys of one vote: the game's, and the round keys of the player's vote slot. */
export type VoteKeys = ReturnType<typeof gameKeys>;

export function voteKeys(tournamentId: string, slot: number, slots: number): VoteKeys {
  return { ...gameKeys(tournamentId), ...slotKeys(tournamentId, slot, slots) };
}

/** One vote of one player in one round, as its settlement knows it. */
export interface SettledVote {
  keys: VoteKeys;
  roundNumber: number;
  userId: string;
  imageId: string;
}

/** `settleVote`'s answers that mean the vote counts. */
export const counts = (settled: string) => settled === 'ACKNOWLEDGED' || settled === 'COUNTED';

/**
 * The second step of a vote (docs/adr/0009): the answer is decided in the live store, atomically
 * against the engine applying the vote — acknowledged only if it will be counted, refused only if
 * it never will — and a final refusal waits until its withdrawal cannot be lost with the primary.
 */
export class VoteSettlement {
  constructor(
    private readonly deps: {
      store: LiveStore;
      logger: Logger;
      /** The server time in ms since the epoch, the unit of the live store's deadlines. */
      now: () => number;
    },
    private readonly settings: VoteSettings,
  ) {}

  /**
   * Settles a vote (`settleVote`), retrying while the live store is unavailable (a failover) for
   * up to `settleRetryMs`: the vote may be on `game.votes` already, and only the settlement can
   * make the answer agree with the count. Past that, VOTE_NOT_RECORDED: the vote stays admitted
   * and unsettled, and the retry is answered with its fate (a resend). `produced`: where the
   * vote was appended, undefined when its produce failed or timed out (or it is not this
   * gateway's to produce).
   */
  async settle(
    { keys, roundNumber, userId, imageId }: SettledVote,
    gameId: string,
    voteId: string,
    produced: Appended | undefined,
  ): Promise<string> {
    const started = performance.now();
    let delay = 50;
    for (;;) {
      try {
        return await withStoreTimeout(
          this.deps.store.run(
            settleVote,
            [
              keys.state,
              keys.voteIds(roundNumber),
              keys.ballots(roundNumber),
              keys.reserved(roundNumber),
              keys.admitted(roundNumber),
              keys.acknowledged(roundNumber),
              keys.held(roundNumber),
            ],
            [
              gameId,
              roundNumber,
              voteId,
              userId,
              imageId,
              produced ? '1' : '0',
              ...(produced ? [produced.partition, produced.offset ?? ''] : []),
            ],
          ),
          this.settings.storeTimeoutMs,
          settleVote.name,
        );
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        if (performance.now() - started + delay > this.settings.settleRetryMs) {
          this.deps.logger.warn(
            { err: error, voteId, produced },
            'live store unavailable: vote left unsettled, answered VOTE_NOT_RECORDED',
          );
          throw gameErrors.notRecorded(error);
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }

  /**
   * Settles a vote this gateway admitted and tried to produce; returns when it counts, and
   * otherwise throws its answer: VOTE_NOT_RECORDED (retry) when it was not produced or a resend
   * took its place, the final VOTING_CLOSED when it was produced after the round began closing.
   */
  async settleProduced(
    vote: SettledVote & { tournamentId: string; votingEndsAt: number },
    gameId: string,
    voteId: string,
    produced: Appended | undefined,
  ): Promise<void> {
    const settled = await this.settle(vote, gameId, voteId, produced);
    if (counts(settled)) return;
    // Not produced, or a resend took its place (that one answers for the player): retryable.
    if (!produced || settled === 'SUPERSEDED') throw gameErrors.notRecorded();
    // Produced after the engine began closing the round's votes, and withdrawn (or refused).
    // VOTING_CLOSED is final (no retry comes): only once the withdrawal cannot be lost with the
    // primary, or the promoted replica would count the vote.
    await this.withdrawalReplicated(voteId);
    const { tournamentId, roundNumber } = vote;
    this.deps.logger.warn(
      { tournamentId, voteId, roundNumber, late: this.deps.now() - vote.votingEndsAt, settled },
      'vote produced after the round began closing; not counted',
    );
    throw refusals.VOTING_CLOSED();
  }

  /**
   * Waits for `withdrawalReplicas` replicas to confirm the store's writes so far (the
   * withdrawal among them); fewer, or a store that does not answer, is VOTE_NOT_RECORDED.
   */
  async withdrawalReplicated(voteId: string): Promise<void> {
    const { withdrawalReplicas, withdrawalWaitMs, storeTimeoutMs } = this.settings;
    if (withdrawalReplicas === 0) return;
    let confirmed: number;
    try {
      confirmed = await withStoreTimeout(
        this.deps.store.waitForReplicas(withdrawalReplicas, withdrawalWaitMs),
        withdrawalWaitMs + storeTimeoutMs,
        'waitForReplicas',
      );
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      this.deps.logger.warn(
        { err: error, voteId },
        'live store unavailable while waiting for a withdrawal to replicate; answered VOTE_NOT_RECORDED',
      );
      throw gameErrors.notRecorded(error);
    }
    if (confirmed < withdrawalReplicas) {
      this.deps.logger.warn(
        { voteId, confirmed, wanted: withdrawalReplicas, waitedMs: withdrawalWaitMs },
        'a withdrawal was not confirmed by enough replicas; answered VOTE_NOT_RECORDED',
      );
      throw gameErrors.notRecorded();
    }
  }
}
