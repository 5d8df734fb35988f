import { requireUser, requireVerifiedUser, type Clock, type Logger } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import type { LifecycleOutbox } from '../adapters/lifecycle-outbox';
import type { DeviceClaim, OfflineRepository } from '../adapters/offline-repository';
import type { TournamentRepository } from '../adapters/tournament-repository';
import { tournamentErrors } from '../domain/errors';
import { isOfflineWindowOpen, type OfflineChoice } from '../domain/offline';
import type { Tournament } from '../domain/tournament';

export interface OfflineChoicesDependencies {
  tournaments: TournamentRepository;
  offline: OfflineRepository;
  /** Tells the game engine (`OfflineChoicesSaved`); absent in tests that do not look. */
  outbox?: LifecycleOutbox;
  clock: Clock;
  logger: Logger;
}

export interface SavedOfflineChoices {
  choices: OfflineChoice[];
  tournament: Tournament;
}

/** Offline pre-registration: all 17 choices, saved once, while the offline window is open. */
export class OfflineChoices {
  constructor(private readonly deps: OfflineChoicesDependencies) {}

  async save(
    actor: Actor | undefined,
    tournamentId: string,
    /** A full, valid set by round (`validateOfflineChoices`, applied by the handler). */
    choices: OfflineChoice[],
  ): Promise<SavedOfflineChoices> {
    const userId = requireVerifiedUser(actor);
    const tournament = await this.tournament(tournamentId);
    const now = this.deps.clock.now();
    if (!isOfflineWindowOpen(tournament, now)) throw tournamentErrors.offlineWindowClosed();

    const { offline } = this.deps;
    // The request's X-Device-ID; a client that sent none claims no device.
    const deviceId = actor?.deviceId || undefined;
    const username = actor?.username ?? '';
    let claim: DeviceClaim | undefined;
    if (deviceId !== undefined) {
      claim = await offline.claimDevice(tournamentId, deviceId, userId, now);
      if (claim === 'taken') throw tournamentErrors.deviceAlreadyUsed();
    }
    // The registration insert is the "once": of two parallel saves exactly one gets past it.
    if (!(await offline.register(tournamentId, userId, deviceId, now, username))) {
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
    await this.deps.outbox?.publishNow({
      kind: 'offlineChoicesSaved',
      saved: { tournamentId, userId, username, deviceId: deviceId ?? '', choices },
      occurredAt: now,
    });
    return { choices, tournament: counted };
  }

  /** The actor's choices, by round; empty when they have none. */
  async list(actor: Actor | undefined, tournamentId: string): Promise<OfflineChoice[]> {
    const userId = requireUser(actor);
    await this.tournament(tournamentId);
    return this.deps.offline.choicesOf(tournamentId, userId);
  }

  /** Whether the actor has saved choices for the tournament; visitors never have. */
  async has(actor: Actor | undefined, tournamentId: string): Promise<boolean> {
    if (!actor?.userId) return false;
    await this.tournament(tournamentId);
    return this.deps.offline.isRegistered(tournamentId, actor.userId);
  }

  private async tournament(id: string): Promise<Tournament> {
    const tournament = await this.deps.tournaments.findById(id);
    if (!tournament) throw tournamentErrors.notFound();
    return tournament;
  }
}
