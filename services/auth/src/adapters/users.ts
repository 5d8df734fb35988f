import {
  DuplicateKeyError,
  type Collection,
  type CollectionDefinition,
  type DocumentStore,
} from '@underdog/documents';
import type { PendingVerification, Role, User } from '../domain/user';
import { verificationRules } from '../domain/verification';

export const usersCollection: CollectionDefinition<User> = {
  name: 'users',
  indexes: [
    { fields: { email: 1 }, unique: true },
    { fields: { username: 1 }, unique: true },
    // Verification links carry only the token: the user is found by its hash.
    { fields: { 'verification.tokenHash': 1 } },
  ],
};

export type InsertOutcome = 'inserted' | 'email-taken' | 'username-taken';

/**
 * The `users` collection. Every conditional change is one atomic `updateOne` whose filter states
 * what the change assumes, so racing replicas cannot both act on the same state.
 */
export class UsersRepository {
  private readonly users: Collection<User>;

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

  byId(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  /** `email` must be normalised already. */
  byEmail(email: string): Promise<User | null> {
    return this.users.findOne({ email });
  }

  byTokenHash(tokenHash: string): Promise<User | null> {
    return this.users.findOne({ 'verification.tokenHash': tokenHash });
  }

  /**
   * Spends one of the code's attempts before the code is compared, so concurrent guesses cannot
   * exceed the limit. Null when the verification changed meanwhile (verified, replaced, void).
   */
  spendCodeAttempt(userId: string, verification: PendingVerification): Promise<User | null> {
    return this.users.updateOne(
      {
        id: userId,
        isEmailVerified: false,
        'verification.tokenHash': verification.tokenHash,
        'verification.failedAttempts': { $lt: verificationRules.maxCodeAttempts },
      },
      { $inc: { 'verification.failedAttempts': 1 } },
    );
  }

  /** Marks the e-mail verified if `verification` is still the pending one (single use). */
  markVerified(userId: string, verification: PendingVerification): Promise<User | null> {
    return this.users.updateOne(
      { id: userId, isEmailVerified: false, 'verification.tokenHash': verification.tokenHash },
      { $set: { isEmailVerified: true }, $unset: { verification: true } },
    );
  }

  /**
   * Replaces the pending verification, provided nobody sent one since `previouslySentAt` (the
   * value read before deciding a resend was allowed). Null when the account changed meanwhile.
   */
  replaceVerification(
    userId: string,
    previouslySentAt: Date | null,
    verification: PendingVerification,
    sentAt: Date,
  ): Promise<User | null> {
    return this.users.updateOne(
      { id: userId, isEmailVerified: false, emailVerificationSentAt: previouslySentAt },
      { $set: { verification, emailVerificationSentAt: sentAt } },
    );
  }

  setPasswordHash(userId: string, passwordHash: string): Promise<User | null> {
    return this.users.updateOne({ id: userId }, { $set: { passwordHash } });
  }

  setDisplayName(userId: string, displayName: string): Promise<User | null> {
    return this.users.updateOne({ id: userId }, { $set: { displayName } });
  }

  /** Sets the role; `changed` is false when the user already had it. Null: no such user. */
  async setRole(email: string, role: Role): Promise<{ user: User; changed: boolean } | null> {
    const updated = await this.users.updateOne({ email, role: { $ne: role } }, { $set: { role } });
    if (updated) return { user: updated, changed: true };
    const user = await this.byEmail(email);
    return user ? { user, changed: false } : null;
  }
}
