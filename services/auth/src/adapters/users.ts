import {
  defineCollection,
  DuplicateKeyError,
  Schema,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';
import {
  roles,
  type PendingVerification,
  type Role,
  type User,
  type UserStatistics,
} from '../domain/user';
import { usernameLength } from '../domain/username';
import { verificationRules, type CodeChannel } from '../domain/verification';

const count = { type: Number, required: true, min: 0 } as const;

const verificationSchema = new Schema(
  {
    codeHash: { type: String, required: true },
    tokenHash: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    failedAttempts: { ...count, max: verificationRules.maxCodeAttempts },
    // Absent in verifications stored before it was counted apart: read as 0.
    failedEmailAttempts: { type: Number, min: 0, max: verificationRules.maxCodeAttempts },
  },
  { _id: false },
);

const statisticsSchema = new Schema(
  {
    gamesPlayed: count,
    wins: count,
    totalPrizes: count,
    roundsWon: count,
    totalRoundsPlayed: count,
    longestWinStreak: count,
    currentWinStreak: count,
    biggestTournamentSize: count,
    firstWinDate: { type: Date, default: null },
  },
  { _id: false },
);

export const usersCollection = defineCollection({
  name: 'users',
  schema: new Schema({
    username: {
      type: String,
      required: true,
      minlength: usernameLength.min,
      maxlength: usernameLength.max,
    },
    email: { type: String, required: true },
    displayName: { type: String, required: true },
    passwordHash: { type: String, required: true },
    role: { type: String, enum: roles, required: true },
    isEmailVerified: { type: Boolean, required: true },
    emailVerificationSentAt: { type: Date, default: null },
    verification: verificationSchema,
    statistics: { type: statisticsSchema, required: true },
    appliedGameIds: { type: [String], default: undefined },
    createdAt: { type: Date, required: true },
  }),
  indexes: [
    { fields: { email: 1 }, unique: true },
    { fields: { username: 1 }, unique: true },
    // Verification links carry only the token: the user is found by its hash.
    { fields: { 'verification.tokenHash': 1 } },
  ],
});

type StoredUser = DocumentOf<typeof usersCollection>;

/** The schema allows null where the domain has a field absent (or null): one shape out. */
function toUser({
  verification,
  emailVerificationSentAt,
  statistics,
  appliedGameIds,
  ...user
}: StoredUser): User {
  return {
    ...user,
    ...(appliedGameIds ? { appliedGameIds } : {}),
    emailVerificationSentAt: emailVerificationSentAt ?? null,
    statistics: { ...statistics, firstWinDate: statistics.firstWinDate ?? null },
    ...(verification
      ? {
          verification: {
            ...verification,
            failedEmailAttempts: verification.failedEmailAttempts ?? 0,
          },
        }
      : {}),
  };
}

const orNull = (stored: StoredUser | null): User | null => (stored ? toUser(stored) : null);

export type InsertOutcome = 'inserted' | 'email-taken' | 'username-taken';

export type GameOutcomeApplied = 'applied' | 'already-applied' | 'no-such-user';

/**
 * How many applied game ids a user keeps: an outcome is delivered again within moments (a retried
 * batch, a rebalance), never after this many later games.
 */
export const appliedGamesKept = 100;
const maxOutcomeAttempts = 20;

/**
 * The `users` collection. Every conditional change is one atomic `updateOne` whose filter states
 * what the change assumes, so racing replicas cannot both act on the same state.
 */
export class UsersRepository {
  private readonly users: Collection<StoredUser>;

  constructor(documents: DocumentStore) {
    this.users = documents.collection(usersCollection);
  }

  /** Inserts a new user, or says which unique value is taken. */
  async insert(user: User): Promise<InsertOutcome> {
    try {
      await this.users.insertOne(user);
      return 'inserted';
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      if (error.index === 'username_1') return 'username-taken';
      if (error.index === 'email_1') return 'email-taken';
      // Some servers do not name the index; the e-mail is the one that can be checked.
      return (await this.byEmail(user.email)) ? 'email-taken' : 'username-taken';
    }
  }

  /** Inserts many new users at once (the benchmark's seeding); any duplicate fails the call. */
  async insertMany(users: readonly User[]): Promise<void> {
    await this.users.insertMany(users);
  }

  async byId(id: string): Promise<User | null> {
    return orNull(await this.users.findById(id));
  }

  /** `email` must be normalised already. */
  async byEmail(email: string): Promise<User | null> {
    return orNull(await this.users.findOne({ email }));
  }

  async byTokenHash(tokenHash: string): Promise<User | null> {
    return orNull(await this.users.findOne({ 'verification.tokenHash': tokenHash }));
  }

  /**
   * Spends one of the code's attempts of `channel` (the session's, or the ones by e-mail) before
   * the code is compared, so concurrent guesses cannot exceed the limit. Null when the
   * verification changed meanwhile (verified, replaced, void) or the channel has no tries left.
   */
  async spendCodeAttempt(
    userId: string,
    verification: PendingVerification,
    channel: CodeChannel,
  ): Promise<User | null> {
    const counter =
      channel === 'session' ? 'verification.failedAttempts' : 'verification.failedEmailAttempts';
    const { maxCodeAttempts } = verificationRules;
    return orNull(
      await this.users.updateOne(
        {
          id: userId,
          isEmailVerified: false,
          'verification.tokenHash': verification.tokenHash,
          'verification.failedAttempts': { $lt: maxCodeAttempts },
          // $ne, not $lt: a verification stored before this counter existed has none.
          ...(channel === 'email' ? { [counter]: { $ne: maxCodeAttempts } } : {}),
        },
        { $inc: { [counter]: 1 } },
      ),
    );
  }

  /** Marks the e-mail verified if `verification` is still the pending one (single use). */
  async markVerified(userId: string, verification: PendingVerification): Promise<User | null> {
    return orNull(
      await this.users.updateOne(
        { id: userId, isEmailVerified: false, 'verification.tokenHash': verification.tokenHash },
        { $set: { isEmailVerified: true }, $unset: { verification: true } },
      ),
    );
  }

  /**
   * Replaces the pending verification, provided nobody sent one since `previouslySentAt` (the
   * value read before deciding a resend was allowed). Null when the account changed meanwhile.
   */
  async replaceVerification(
    userId: string,
    previouslySentAt: Date | null,
    verification: PendingVerification,
    sentAt: Date,
  ): Promise<User | null> {
    return orNull(
      await this.users.updateOne(
        { id: userId, isEmailVerified: false, emailVerificationSentAt: previouslySentAt },
        { $set: { verification, emailVerificationSentAt: sentAt } },
      ),
    );
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<User | null> {
    return orNull(await this.users.updateOne({ id: userId }, { $set: { passwordHash } }));
  }

  async setDisplayName(userId: string, displayName: string): Promise<User | null> {
    return orNull(await this.users.updateOne({ id: userId }, { $set: { displayName } }));
  }

  /**
   * Adds one game's outcome to the user's statistics, exactly once per game: the statistics and
   * the game id are written in one conditional update that assumes the statistics still are
   * the ones read (`gamesPlayed` grows with every game) and the game is not applied yet. A
   * concurrent change makes it read again; a game already applied is left alone.
   */
  async applyGameOutcome(
    userId: string,
    gameId: string,
    next: (statistics: UserStatistics) => UserStatistics,
  ): Promise<GameOutcomeApplied> {
    for (let attempt = 0; attempt < maxOutcomeAttempts; attempt += 1) {
      const user = orNull(await this.users.findById(userId));
      if (!user) return 'no-such-user';
      const applied = user.appliedGameIds ?? [];
      if (applied.includes(gameId)) return 'already-applied';
      const updated = await this.users.updateOne(
        {
          id: userId,
          'statistics.gamesPlayed': user.statistics.gamesPlayed,
          appliedGameIds: { $ne: gameId },
        },
        {
          $set: {
            statistics: next(user.statistics),
            appliedGameIds: [...applied, gameId].slice(-appliedGamesKept),
          },
        },
      );
      if (updated) return 'applied';
    }
    throw new Error(`the statistics of user ${userId} kept changing; game ${gameId} not applied`);
  }

  /** Sets the role; `changed` is false when the user already had it. Null: no such user. */
  async setRole(email: string, role: Role): Promise<{ user: User; changed: boolean } | null> {
    const updated = await this.users.updateOne({ email, role: { $ne: role } }, { $set: { role } });
    if (updated) return { user: toUser(updated), changed: true };
    const user = await this.byEmail(email);
    return user ? { user, changed: false } : null;
  }
}
