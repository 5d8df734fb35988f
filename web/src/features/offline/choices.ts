import { TOTAL_ROUNDS, offlinePosition } from '@underdog/rules';

/** Picks by round number (1..TOTAL_ROUNDS) → zero-based option position. */
export type Choices = ReadonlyMap<number, number>;

export function withChoice(choices: Choices, round: number, option: number): Choices {
  const next = new Map(choices);
  next.set(round, option);
  return next;
}

export function isComplete(choices: Choices): boolean {
  return choices.size === TOTAL_ROUNDS;
}

export function progressOf(choices: Choices): { done: number; percent: number } {
  return { done: choices.size, percent: Math.round((choices.size / TOTAL_ROUNDS) * 100) };
}

/** The first round without a pick after `round`, else the first without one at all. */
export function nextOpenRound(choices: Choices, round: number): number | undefined {
  for (let r = round + 1; r <= TOTAL_ROUNDS; r += 1) if (!choices.has(r)) return r;
  for (let r = 1; r <= TOTAL_ROUNDS; r += 1) if (!choices.has(r)) return r;
  return undefined;
}

/** The mutation's input: selectedImageId is the zero-based position as a string. */
export function choicesInput(choices: Choices) {
  return [...choices.entries()]
    .sort(([a], [b]) => a - b)
    .map(([roundNumber, option]) => ({ roundNumber, selectedImageId: offlinePosition(option) }));
}
