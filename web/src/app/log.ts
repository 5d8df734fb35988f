/**
 * The browser's log: failures the user is not told about (spec §8, "logged only") still leave a
 * trace in the console, with what failed and the error.
 */
export function logFailure(what: string, error: unknown): void {
  console.warn(`[underdog] ${what}`, error);
}
