import {
  defineCollection,
  insertOnce,
  required,
  Schema,
  withoutEmpty,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';

/**
 * A finished game's prize (issue 28): id = tournament id, written when `GameEnded` arrives (the
 * winner, or none), its winner replaced when a disqualification after the game re-decided it,
 * and `paidAt`/`paidBy*` once an administrator confirmed the payment (set once, never changed).
 */
const prizesCollection = defineCollection({
  name: 'prizes',
  schema: new Schema({
    /** Empty when the game ended without a winner. */
    winnerUserId: String,
    winnerUsername: String,
    prize: String,
    endedAt: required(Date),
    paidAt: Date,
    paidByUserId: String,
    paidByUsername: String,
  }),
  indexes: [{ fields: { paidAt: 1 } }],
});

export type StoredPrize = DocumentOf<typeof prizesCollection>;

/** The prizes' store (MongoDB in distributed mode, the memory store standalone). */
export class PrizeRepository {
  private readonly prizes: Collection<StoredPrize>;

  constructor(documents: DocumentStore) {
    this.prizes = documents.collection(prizesCollection);
  }

  /** The game ended: its winner (none: empty). A repeat of the same end changes nothing. */
  async ended(prize: Omit<StoredPrize, 'paidAt' | 'paidByUserId' | 'paidByUsername'>) {
    await insertOnce(this.prizes, withoutEmpty(prize));
  }

  /**
   * A disqualification after the game re-decided the winner (none: empty). A prize already
   * confirmed paid keeps the winner it was paid to: the payment is history, not a claim.
   */
  async winnerRedecided(
    tournamentId: string,
    winner: { userId: string; username: string },
  ): Promise<void> {
    await this.prizes.updateOne(
      { id: tournamentId, paidAt: null },
      !winner.userId
        ? { $unset: { winnerUserId: true, winnerUsername: true } }
        : winner.username
          ? { $set: { winnerUserId: winner.userId, winnerUsername: winner.username } }
          : { $set: { winnerUserId: winner.userId }, $unset: { winnerUsername: true } },
    );
  }

  async get(tournamentId: string): Promise<StoredPrize | null> {
    return this.prizes.findById(tournamentId);
  }

  /**
   * Marks the prize paid unless it already is: the updated prize, or null when it was paid
   * before (or does not exist). One conditional update, so of two admins confirming at once
   * exactly one confirms.
   */
  async markPaid(
    tournamentId: string,
    paid: { at: Date; byUserId: string; byUsername: string },
  ): Promise<StoredPrize | null> {
    return this.prizes.updateOne(
      { id: tournamentId, paidAt: null, winnerUserId: { $exists: true } },
      {
        $set: withoutEmpty({
          paidAt: paid.at,
          paidByUserId: paid.byUserId,
          paidByUsername: paid.byUsername,
        }),
      },
    );
  }

  /** Every prize confirmed paid. */
  async paid(): Promise<StoredPrize[]> {
    return this.prizes.find({ paidAt: { $exists: true } }, { sort: { paidAt: -1 } });
  }
}
