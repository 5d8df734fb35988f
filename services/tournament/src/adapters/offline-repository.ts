import { randomUUID } from 'node:crypto';
import {
  defineCollection,
  insertOnce,
  required,
  Schema,
  type Collection,
  type DocumentOf,
  type DocumentStore,
} from '@underdog/documents';
import { OFFLINE_POSITIONS, TOTAL_ROUNDS } from '@underdog/rules';
import type { OfflineChoice } from '../domain/offline';

/** The spec's `offline_choices` entity: one row per user, tournament and round. */
const choicesCollection = defineCollection({
  name: 'offline_choices',
  schema: new Schema({
    userId: required(String),
    tournamentId: required(String),
    roundNumber: { type: Number, required: true, min: 1, max: TOTAL_ROUNDS },
    /** One of the round's image options, "0" to "3" (OFFLINE_POSITIONS). */
    selectedImageId: { type: String, required: true, enum: [...OFFLINE_POSITIONS] },
    createdAt: required(Date),
    updatedAt: required(Date),
  }),
  indexes: [
    { fields: { userId: 1, tournamentId: 1, roundNumber: 1 }, unique: true },
    { fields: { tournamentId: 1, roundNumber: 1 } },
  ],
});

/**
 * A user's offline registration for a tournament, id `${tournamentId}:${userId}`. Inserting it
 * is the atomic "save once": of two parallel saves only one insert succeeds.
 */
const registrationsCollection = defineCollection({
  name: 'offline_registrations',
  schema: new Schema({
    tournamentId: required(String),
    userId: required(String),
    username: String,
    deviceId: String,
    createdAt: required(Date),
    /** False until `OfflineChoicesSaved` is on the bus (the registration is its own outbox). */
    published: Boolean,
  }),
  indexes: [{ fields: { tournamentId: 1 } }, { fields: { published: 1, createdAt: 1 } }],
});

/**
 * Which user a device backs in a tournament, id `${tournamentId}:${deviceId}`. A collection of
 * its own rather than a unique index on registrations, because FerretDB has no partial index to
 * leave registrations without a device id out of it.
 */
const deviceClaimsCollection = defineCollection({
  name: 'tournament_device_claims',
  schema: new Schema({
    tournamentId: required(String),
    deviceId: required(String),
    userId: required(String),
    createdAt: required(Date),
  }),
  indexes: [{ fields: { tournamentId: 1 } }],
});

type OfflineChoiceDocument = DocumentOf<typeof choicesCollection>;
type RegistrationDocument = DocumentOf<typeof registrationsCollection>;
type DeviceClaimDocument = DocumentOf<typeof deviceClaimsCollection>;

export type DeviceClaim = 'claimed' | 'already-yours' | 'taken';

/** What `OfflineChoicesSaved` carries. */
export interface SavedRegistration {
  tournamentId: string;
  userId: string;
  username: string;
  deviceId: string;
  choices: OfflineChoice[];
}

const registrationId = (tournamentId: string, userId: string) => `${tournamentId}:${userId}`;
const deviceClaimId = (tournamentId: string, deviceId: string) => `${tournamentId}:${deviceId}`;

export class OfflineRepository {
  private readonly choices: Collection<OfflineChoiceDocument>;
  private readonly registrations: Collection<RegistrationDocument>;
  private readonly deviceClaims: Collection<DeviceClaimDocument>;

  constructor(documents: DocumentStore) {
    this.choices = documents.collection(choicesCollection);
    this.registrations = documents.collection(registrationsCollection);
    this.deviceClaims = documents.collection(deviceClaimsCollection);
  }

  /** Makes `deviceId` back `userId` in the tournament, unless it already backs someone else. */
  async claimDevice(
    tournamentId: string,
    deviceId: string,
    userId: string,
    now: Date,
  ): Promise<DeviceClaim> {
    const id = deviceClaimId(tournamentId, deviceId);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claim = { id, tournamentId, deviceId, userId, createdAt: now };
      if (await insertOnce(this.deviceClaims, claim)) return 'claimed';
      const holder = await this.deviceClaims.findById(id);
      if (holder) return holder.userId === userId ? 'already-yours' : 'taken';
      // Released between our insert and this read: try again.
    }
    return 'taken';
  }

  async releaseDevice(tournamentId: string, deviceId: string, userId: string): Promise<void> {
    await this.deviceClaims.deleteOne({ id: deviceClaimId(tournamentId, deviceId), userId });
  }

  /** False when the user is already registered for the tournament. */
  async register(
    tournamentId: string,
    userId: string,
    deviceId: string | undefined,
    now: Date,
    username = '',
  ): Promise<boolean> {
    return insertOnce(this.registrations, {
      id: registrationId(tournamentId, userId),
      tournamentId,
      userId,
      username,
      ...(deviceId === undefined ? {} : { deviceId }),
      createdAt: now,
      published: false,
    });
  }

  /** `OfflineChoicesSaved` of this registration is on the bus. */
  async markPublished(tournamentId: string, userId: string): Promise<void> {
    await this.registrations.updateOne(
      { id: registrationId(tournamentId, userId) },
      { $set: { published: true } },
    );
  }

  /** Registrations whose event is still unpublished since before `before`, with their choices. */
  async unpublishedSince(before: Date, limit: number): Promise<SavedRegistration[]> {
    const pending = await this.registrations.find(
      { published: false, createdAt: { $lte: before } },
      { limit },
    );
    return Promise.all(
      pending.map(async (registration) => ({
        tournamentId: registration.tournamentId,
        userId: registration.userId,
        username: registration.username ?? '',
        deviceId: registration.deviceId ?? '',
        choices: await this.choicesOf(registration.tournamentId, registration.userId),
      })),
    );
  }

  async registeredDevice(tournamentId: string, userId: string): Promise<string | undefined> {
    const registration = await this.registrations.findById(registrationId(tournamentId, userId));
    return registration?.deviceId ?? undefined;
  }

  async isRegistered(tournamentId: string, userId: string): Promise<boolean> {
    return (await this.registrations.findById(registrationId(tournamentId, userId))) !== null;
  }

  /** Undoes a registration whose choices could not be stored, so the user can try again. */
  async unregister(tournamentId: string, userId: string): Promise<void> {
    await this.choices.deleteMany({ tournamentId, userId });
    await this.registrations.deleteOne({ id: registrationId(tournamentId, userId) });
  }

  async insertChoices(
    tournamentId: string,
    userId: string,
    choices: readonly OfflineChoice[],
    now: Date,
  ): Promise<void> {
    await this.choices.insertMany(
      choices.map(({ roundNumber, selectedImageId }) => ({
        id: randomUUID(),
        userId,
        tournamentId,
        roundNumber,
        selectedImageId,
        createdAt: now,
        updatedAt: now,
      })),
    );
  }

  async choicesOf(tournamentId: string, userId: string): Promise<OfflineChoice[]> {
    const rows = await this.choices.find({ tournamentId, userId }, { sort: { roundNumber: 1 } });
    return rows.map(({ roundNumber, selectedImageId }) => ({ roundNumber, selectedImageId }));
  }

  /** Everything recorded for a deleted tournament. */
  async deleteForTournament(tournamentId: string): Promise<void> {
    await this.choices.deleteMany({ tournamentId });
    await this.registrations.deleteMany({ tournamentId });
    await this.deviceClaims.deleteMany({ tournamentId });
  }
}
