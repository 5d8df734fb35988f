/**
 * The shapes the auth use cases share: their dependencies, a signed-in user, a session's actor,
 * a registration and the configured first admin (`Accounts` and its parts take them).
 */
import type { Clock, Logger } from '@underdog/kit';
import type { AuthEvents } from './adapters/events';
import type { SessionStore } from './adapters/sessions';
import type { ResendThrottle } from './adapters/throttle';
import type { UsersRepository } from './adapters/users';
import type { Session, SessionClaims } from './domain/session';
import type { User } from './domain/user';

export interface AccountsDependencies {
  users: UsersRepository;
  sessions: SessionStore;
  resendThrottle: ResendThrottle;
  events: AuthEvents;
  clock: Clock;
  logger: Logger;
  /** A hash of a random password: logins for unknown e-mails verify against it (same timing). */
  dummyPasswordHash: string;
}

/** A user with a session just opened or resolved for them. */
export interface SignedIn {
  user: User;
  session: Session;
}

/** A session resolved to what acting for its user needs, without reading the user. */
export interface SessionActor {
  userId: string;
  claims: SessionClaims;
  session: Session;
}

/** Inputs are validated and normalised by the handlers; e-mails arrive trimmed and lower-case. */
export interface Registration {
  email: string;
  displayName: string;
  password: string;
  deviceId: string;
}

export interface AdminAccount {
  email: string;
  password: string;
  displayName: string;
}
