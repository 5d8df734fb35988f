import type { Logger } from '@underdog/kit';
import type { LifecycleOutbox } from '../adapters/lifecycle-outbox';
import type { DeviceClaim, OfflineRepository } from '../adapters/offline-repository';
import type { TournamentRepository } from '../adapters/tournament-repository';
import { requireUser, requireVerifiedUser, type Caller } from '../domain/access';
import { tournamentErrors } from '../domain/errors';
import { isOfflineWindowOpen, validateOfflineChoices, type OfflineChoice } from '../domain/offline';
import type { Clock, Tournament } from '../domain/tournament';

export interface OfflineRegistrationsDependencies {
  tournaments: TournamentRepository;
  offline: OfflineRepository;
  /** Tells the game engine (`OfflineChoicesSaved`); absent in tests that do not look. */
  outbox?: LifecycleOutbox;
  now: Clock;
  logger: Logger;
}

export interface SavedOfflineChoices {
  choices: OfflineChoice[];
  tournament: Tournament;
}

/** Offline pre-registration: all 17 choices, saved once, while the offline window is open. */
export class OfflineRegistrations {
  constructor(private readonly deps: OfflineRegistrationsDependencies) {}

  async save(
    caller: Caller,
    tournamentId: string,
    submitted: readonly OfflineChoice[],
  ): Promise<SavedOfflineChoices> {
    const userId = requireVerifiedUser(caller);
    const choices = validateOfflineChoices(submitted);
    const tournament = await this.tournament(tournamentId);
    const now = this.deps.now();
    if (!isOfflineWindowOpen(tournament, now)) throw tournamentErrors.offlineWindowClosed();

    const { offline } = this.deps;
    const { deviceId } = caller;
    let claim: DeviceClaim | undefined;
    if (deviceId !== undefined) {
      claim = await offline.claimDevice(tournamentId, deviceId, userId, now);
      if (claim === 'taken') throw tournamentErrors.deviceAlreadyUsed();
    }
    // The registration insert is the "once": of two parallel saves exactly one gets past it.
    if (!(await offline.register(tournamentId, userId, deviceId, now, caller.username))) {
      const claimedHere = claim === 'claimed' && deviceId !== undefined;
      if (claimedHere && (await offline.registeredDevice(tournamentId, userId)) !== deviceId) {
        // Registered earlier from another device: this one must not stay tied to the user.
        await offline.releaseDevice(tournamentId, deviceId, userId);
      }
      throw tournamentErrors.alreadyRegistered();
    }

    const undo = async () => {
      await offline.unregister(tournamentId, userId);
      if (claim === 'claimed' && deviceId !== undefined) {
        await offline.releaseDevice(tournamentId, deviceId, userId);
      }
    };
    let counted: Tournament | null;
    try {
      await offline.insertChoices(tournamentId, userId, choices, now);
      counted = await this.deps.tournaments.addParticipants(tournamentId, 1);
    } catch (error) {
      await undo().catch((undoError: unknown) =>
        this.deps.logger.error({ err: undoError, tournamentId, userId }, 'could not undo a save'),
      );
      throw error;
    }
    if (!counted) {
      // Deleted while we saved.
      await undo();
      throw tournamentErrors.notFound();
    }
    this.deps.logger.info({ tournamentId, userId }, 'offline choices saved');
    // After the save: a failure here leaves the registration unpublished for the sweep.
    await this.deps.outbox?.publishOfflineChoices(
      { tournamentId, userId, username: caller.username, deviceId: deviceId ?? '', choices },
      now,
    );
    return { choices, tournament: counted };
  }

  /** The caller's choices, by round; empty when they have none. */
  async list(caller: Caller, tournamentId: string): Promise<OfflineChoice[]> {
    const userId = requireUser(caller);
    await this.tournament(tournamentId);
    return this.deps.offline.choicesOf(tournamentId, userId);
  }

  /** Whether the caller has saved choices for the tournament; visitors never have. */
  async has(caller: Caller, tournamentId: string): Promise<boolean> {
    if (caller.userId === undefined) return false;
    await this.tournament(tournamentId);
    return this.deps.offline.isRegistered(tournamentId, caller.userId);
  }

  private async tournament(id: string): Promise<Tournament> {
    const tournament = await this.deps.tournaments.findById(id);
    if (!tournament) throw tournamentErrors.notFound();
    return tournament;
  }
}
