import { commonErrors } from '@underdog/kit';
import type { Tournament } from './tournament';

export const ROUNDS_PER_TOURNAMENT = 17;
export const IMAGES_PER_ROUND = 4;
/** The offline window closes this long before the start. */
export const OFFLINE_WINDOW_CLOSES_BEFORE_START_MS = 5 * 60_000;

/** One pre-registered pick: the zero-based position ("0".."3") of the image in that round. */
export interface OfflineChoice {
  roundNumber: number;
  selectedImageId: string;
}

export function offlineWindowClosesAt(tournament: Pick<Tournament, 'startAt'>): Date {
  return new Date(tournament.startAt.getTime() - OFFLINE_WINDOW_CLOSES_BEFORE_START_MS);
}

/** Open while the tournament is upcoming and the server clock is before start − 5 minutes. */
export function isOfflineWindowOpen(
  tournament: Pick<Tournament, 'status' | 'startAt'>,
  now: Date,
): boolean {
  return (
    tournament.status === 'upcoming' && now.getTime() < offlineWindowClosesAt(tournament).getTime()
  );
}

const validOptions = new Set(
  Array.from({ length: IMAGES_PER_ROUND }, (_, position) => String(position)),
);

/** A full set of choices: every round 1..17 exactly once, each an option "0".."3"; by round. */
export function validateOfflineChoices(choices: readonly OfflineChoice[]): OfflineChoice[] {
  const rounds = new Set<number>();
  for (const { roundNumber } of choices) {
    const inRange =
      Number.isInteger(roundNumber) && roundNumber >= 1 && roundNumber <= ROUNDS_PER_TOURNAMENT;
    if (!inRange || rounds.has(roundNumber)) {
      throw commonErrors.invalid(`Round numbers must be 1 to ${ROUNDS_PER_TOURNAMENT}, each once`);
    }
    rounds.add(roundNumber);
  }
  if (rounds.size !== ROUNDS_PER_TOURNAMENT) {
    throw commonErrors.invalid(`Offline choices must cover all ${ROUNDS_PER_TOURNAMENT} rounds`);
  }
  if (!choices.every((choice) => validOptions.has(choice.selectedImageId))) {
    throw commonErrors.invalid(
      `Each choice must be an option from "0" to "${IMAGES_PER_ROUND - 1}"`,
    );
  }
  return choices
    .map(({ roundNumber, selectedImageId }) => ({ roundNumber, selectedImageId }))
    .sort((a, b) => a.roundNumber - b.roundNumber);
}
