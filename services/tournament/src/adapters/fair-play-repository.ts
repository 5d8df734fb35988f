import {
  defineCollection,
  DuplicateKeyError,
  insertOnce,
  required,
  Schema,
  withoutEmpty,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';

/**
 * What the fair-play report is computed from: one row per recorded signal, id = its event id (a
 * redelivered event is one row). Account signals (registered, loggedIn) have no tournament; a
 * tournament's rows (joined; voted = `game.votes`, with where the vote came from since issue 36;
 * seen = the separate vote signal of gateways before it) have one. Device ids, addresses and
 * user agents are only ever keyed hashes here (docs/security.md).
 */
const signalsCollection = defineCollection({
  name: 'fair_play_signals',
  schema: new Schema({
    userId: required(String),
    /** `ACCOUNT_SCOPE` for account signals (mongoose's `required` refuses ''). */
    tournamentId: required(String),
    kind: {
      type: String,
      required: true,
      enum: ['registered', 'loggedIn', 'joined', 'seen', 'voted'],
    },
    at: required(Date),
    deviceId: String,
    addressPrefix: String,
    userAgent: String,
    roundNumber: Number,
    imageId: String,
    /** Votes only: the username the vote carried (the report names people for the admin). */
    username: String,
  }),
  // tournamentId + at: a tournament's rows, and the retention sweep's old rows of a scope.
  indexes: [{ fields: { tournamentId: 1, at: 1 } }, { fields: { userId: 1, tournamentId: 1 } }],
});

/** A round's images as the engine announced them, id `${tournamentId}:${roundNumber}`. */
const roundsCollection = defineCollection({
  name: 'fair_play_rounds',
  schema: new Schema({
    tournamentId: required(String),
    roundNumber: required(Number),
    imageIds: { type: [String], required: true },
  }),
  indexes: [{ fields: { tournamentId: 1 } }],
});

/** The tournament id of an account signal (registered, loggedIn): no tournament id is '*'. */
export const ACCOUNT_SCOPE = '*';

export type StoredSignal = Omit<DocumentOf<typeof signalsCollection>, 'id'>;
/** A row to store: its id (the event id; `vote:<vote id>` for votes) and the signal. */
export interface FairPlayRow {
  id: string;
  signal: StoredSignal;
}
export interface StoredRound {
  tournamentId: string;
  roundNumber: number;
  imageIds: string[];
}

/** The tournament's fair-play signals (MongoDB in distributed mode, the memory store standalone). */
export class FairPlayRepository {
  private readonly signals: Collection<DocumentOf<typeof signalsCollection>>;
  private readonly rounds: Collection<DocumentOf<typeof roundsCollection>>;

  constructor(documents: DocumentStore) {
    this.signals = documents.collection(signalsCollection);
    this.rounds = documents.collection(roundsCollection);
  }

  /** Idempotent on `id` (the event id): false when it was already recorded. */
  async record(id: string, signal: StoredSignal): Promise<boolean> {
    return (await this.recordAll([{ id, signal }])) === 1;
  }

  /**
   * A consumed batch's rows in one unordered `insertMany` (one round trip, not one per vote):
   * rows already stored (a redelivered batch, an id twice in the batch) are refused by the id
   * index and ignored, every other row is inserted. How many were new. Any other failure
   * throws, so the consumer gets the batch again.
   */
  async recordAll(rows: readonly FairPlayRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    try {
      await this.signals.insertMany(
        rows.map(({ id, signal }) => ({ id, ...withoutEmpty(signal) })),
        { ordered: false },
      );
      return rows.length;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return rows.length - error.refused.length;
      throw error;
    }
  }

  async roundStarted(round: StoredRound): Promise<void> {
    await insertOnce(this.rounds, { id: `${round.tournamentId}:${round.roundNumber}`, ...round });
  }

  /** The tournament's own signals, then the account signals of everyone in them. */
  async signalsOf(tournamentId: string): Promise<StoredSignal[]> {
    const own = await this.signals.find({ tournamentId });
    const userIds = [...new Set(own.map((signal) => signal.userId))];
    const accounts =
      userIds.length === 0
        ? []
        : await this.signals.find({ tournamentId: ACCOUNT_SCOPE, userId: { $in: userIds } });
    return [...accounts, ...own].map(({ id: _id, ...signal }) => signal);
  }

  async roundsOf(tournamentId: string): Promise<StoredRound[]> {
    const rows = await this.rounds.find({ tournamentId });
    return rows.map(({ tournamentId: tid, roundNumber, imageIds }) => ({
      tournamentId: tid,
      roundNumber,
      imageIds: [...imageIds],
    }));
  }

  async deleteForTournament(tournamentId: string): Promise<void> {
    await this.signals.deleteMany({ tournamentId });
    await this.rounds.deleteMany({ tournamentId });
  }

  /**
   * Rows older than `before` of tournaments that are not in `known` (deleted tournaments: never
   * played, so only join rows). How many were deleted.
   */
  async deleteUnknownTournamentsBefore(known: readonly string[], before: Date): Promise<number> {
    return this.signals.deleteMany({
      tournamentId: { $nin: [ACCOUNT_SCOPE, ...known] },
      at: { $lt: before },
    });
  }

  /**
   * Account rows older than `before`: a login row is deleted; a registration row keeps only who
   * and when (the registration-burst evidence), its device id and hashes are removed.
   */
  async forgetAccountSignalsBefore(before: Date): Promise<{ deleted: number; stripped: number }> {
    const old = { tournamentId: ACCOUNT_SCOPE, at: { $lt: before } } as const;
    const deleted = await this.signals.deleteMany({ ...old, kind: 'loggedIn' });
    let stripped = 0;
    // One field per pass, matching only rows that still hold it: a sweep with nothing to forget
    // writes nothing (updates are one by one on FerretDB).
    for (const field of ['deviceId', 'addressPrefix', 'userAgent'] as const) {
      stripped += await this.signals.updateMany(
        { ...old, kind: 'registered', [field]: { $exists: true } },
        { $unset: { [field]: true as const } },
      );
    }
    return { deleted, stripped };
  }
}
