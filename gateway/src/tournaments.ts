import {
  TournamentStatus,
  timestampDate,
  timestampFromDate,
  type OfflineChoice,
  type Tournament,
} from '@underdog/proto';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';

/** A tournament as both edges show it: the REST JSON and the GraphQL `Tournament` type. */
export interface TournamentView {
  id: string;
  title: string;
  description: string | null;
  status: 'upcoming' | 'live' | 'finished';
  /** ISO 8601. */
  startAt: string;
  /** Free text as the admin typed it (e.g. "$5,000"), or null. */
  prize: string | null;
  participantCount: number;
  roundTimeSeconds: number;
}

/** One pre-registered pick: the zero-based position ("0".."3") of the image in that round. */
export interface OfflineChoiceView {
  roundNumber: number;
  selectedImageId: string;
}

/** What an admin submits to create or edit a tournament, shape-checked at the edge. */
export interface TournamentInput {
  title: string;
  description?: string | undefined;
  prize?: string | undefined;
  /** Absent when the client sent none: the service answers "Start time is required". */
  startAt?: Date | undefined;
  roundTimeSeconds?: number | undefined;
}

export interface SavedOfflineChoices {
  message: string;
  choices: OfflineChoiceView[];
  /** The tournament with the saver counted among its participants. */
  tournament: TournamentView;
}

export const offlineChoicesSavedMessage = 'Offline choices saved successfully.';
export const tournamentDeletedMessage = 'Tournament deleted successfully.';

const statusNames = {
  [TournamentStatus.UPCOMING]: 'upcoming',
  [TournamentStatus.LIVE]: 'live',
  [TournamentStatus.FINISHED]: 'finished',
} as const satisfies Partial<Record<TournamentStatus, TournamentView['status']>>;

/** The one mapping from the tournament service's `Tournament` to what clients see. */
export function toTournamentView(tournament: Tournament): TournamentView {
  if (tournament.status === TournamentStatus.UNSPECIFIED || !tournament.startAt) {
    throw new Error(`the tournament service returned an incomplete tournament ${tournament.id}`);
  }
  return {
    id: tournament.id,
    title: tournament.title,
    description: tournament.description ?? null,
    status: statusNames[tournament.status],
    startAt: timestampDate(tournament.startAt).toISOString(),
    prize: tournament.prize ?? null,
    participantCount: tournament.participantCount,
    roundTimeSeconds: tournament.roundTimeSeconds,
  };
}

export function toOfflineChoiceView({
  roundNumber,
  selectedImageId,
}: OfflineChoice): OfflineChoiceView {
  return { roundNumber, selectedImageId };
}

/**
 * The tournament operations behind both edges: REST handlers and GraphQL resolvers translate
 * their input, call one of these and render the result. Who may do what, the validation
 * messages and the offline window are the tournament service's.
 */
export class Tournaments {
  constructor(private readonly clients: Pick<GatewayClients, 'tournament'>) {}

  /** Every tournament: live first, then upcoming soonest first, then finished latest first. */
  async list(): Promise<TournamentView[]> {
    const { tournaments } = await delegate(this.clients.tournament.listTournaments({}));
    return tournaments.map(toTournamentView);
  }

  async get(id: string): Promise<TournamentView> {
    const { tournament } = await delegate(this.clients.tournament.getTournament({ id }));
    return toTournamentView(required(tournament));
  }

  /** Admin only. */
  async create(origin: RequestOrigin, input: TournamentInput): Promise<TournamentView> {
    const { tournament } = await delegate(
      this.clients.tournament.createTournament({
        actor: await actorOf(origin),
        ...draftOf(input),
      }),
    );
    return toTournamentView(required(tournament));
  }

  /** Admin only; the service compares the start with the stored one (unchanged is allowed). */
  async update(origin: RequestOrigin, id: string, input: TournamentInput): Promise<TournamentView> {
    const { tournament } = await delegate(
      this.clients.tournament.updateTournament({
        actor: await actorOf(origin),
        id,
        ...draftOf(input),
      }),
    );
    return toTournamentView(required(tournament));
  }

  /** Admin only; never a live tournament. */
  async delete(origin: RequestOrigin, id: string): Promise<void> {
    await delegate(this.clients.tournament.deleteTournament({ actor: await actorOf(origin), id }));
  }

  /** The caller's pre-registered choices, by round; empty when they have none. */
  async offlineChoices(origin: RequestOrigin, tournamentId: string): Promise<OfflineChoiceView[]> {
    const { choices } = await delegate(
      this.clients.tournament.getOfflineChoices({ actor: await actorOf(origin), tournamentId }),
    );
    return choices.map(toOfflineChoiceView);
  }

  /** Whether the caller saved choices for the tournament; false for a visitor. */
  async hasOfflineChoices(origin: RequestOrigin, tournamentId: string): Promise<boolean> {
    const { hasChoices } = await delegate(
      this.clients.tournament.hasOfflineChoices({ actor: await actorOf(origin), tournamentId }),
    );
    return hasChoices;
  }

  /** Verified users, while the offline window is open; all 17 rounds, once per tournament. */
  async saveOfflineChoices(
    origin: RequestOrigin,
    tournamentId: string,
    choices: OfflineChoiceView[],
  ): Promise<SavedOfflineChoices> {
    const saved = await delegate(
      this.clients.tournament.saveOfflineChoices({
        actor: await actorOf(origin),
        tournamentId,
        choices,
      }),
    );
    return {
      message: offlineChoicesSavedMessage,
      choices: saved.choices.map(toOfflineChoiceView),
      tournament: toTournamentView(required(saved.tournament)),
    };
  }
}

function draftOf(input: TournamentInput) {
  return {
    title: input.title,
    description: input.description,
    prize: input.prize,
    startAt: input.startAt && timestampFromDate(input.startAt),
    roundTimeSeconds: input.roundTimeSeconds,
  };
}

function required(tournament: Tournament | undefined): Tournament {
  if (!tournament) throw new Error('the tournament service answered without a tournament');
  return tournament;
}
