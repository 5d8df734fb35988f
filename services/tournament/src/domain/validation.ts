import { commonErrors, parseInput } from '@underdog/kit';
import { z } from 'zod';
import { IMAGES_PER_ROUND, OFFLINE_POSITIONS, TOTAL_ROUNDS, isRoundNumber } from '@underdog/rules';
import type { OfflineChoice } from './offline';
import {
  DESCRIPTION_MAX_LENGTH,
  PRIZE_MAX_LENGTH,
  ROUND_TIME_SECONDS,
  TITLE_MAX_LENGTH,
  type ParsedDraft,
  type TournamentDraft,
} from './tournament';

/**
 * The input rules with the product's messages. The handlers in rpc.ts apply them (kit
 * `parseInput`: 400 VALIDATION_FAILED with the first problem's message), after the access check,
 * so the use cases and the domain work with values that are already valid.
 */

/** Trimmed; blank means absent. */
const optionalText = (max: number, label: string) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .transform((value) => (value === '' ? undefined : value));

const roundTimeMessage = `Round time must be between ${ROUND_TIME_SECONDS.min} and ${ROUND_TIME_SECONDS.max} seconds`;

// Keys in the order problems are reported: the first one becomes the error message.
export const draftInput = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'Title is required')
    .max(TITLE_MAX_LENGTH, `Title must be at most ${TITLE_MAX_LENGTH} characters`),
  startAt: z.date({ error: 'Start time is required' }),
  roundTimeSeconds: z
    .number()
    .int(roundTimeMessage)
    .min(ROUND_TIME_SECONDS.min, roundTimeMessage)
    .max(ROUND_TIME_SECONDS.max, roundTimeMessage)
    .optional(),
  description: optionalText(DESCRIPTION_MAX_LENGTH, 'Description'),
  prize: optionalText(PRIZE_MAX_LENGTH, 'Prize'),
});

/** Parses a draft (see `draftInput`) into the domain's `ParsedDraft` (its type checked here). */
export const parseDraft = (draft: TournamentDraft): ParsedDraft => parseInput(draftInput, draft);

const validOptions = new Set(OFFLINE_POSITIONS);

/** A full set of choices: every round 1..TOTAL_ROUNDS exactly once, each an option "0".."3"; by round. */
export function validateOfflineChoices(choices: readonly OfflineChoice[]): OfflineChoice[] {
  const rounds = new Set<number>();
  for (const { roundNumber } of choices) {
    if (!isRoundNumber(roundNumber) || rounds.has(roundNumber)) {
      throw commonErrors.invalid(`Round numbers must be 1 to ${TOTAL_ROUNDS}, each once`);
    }
    rounds.add(roundNumber);
  }
  if (rounds.size !== TOTAL_ROUNDS) {
    throw commonErrors.invalid(`Offline choices must cover all ${TOTAL_ROUNDS} rounds`);
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
