/**
 * Usernames are derived from the e-mail's local part (server rules): lower-case `[a-z0-9_]`,
 * 3–20 characters, with a numeric suffix when taken.
 */
export const usernameLength = { min: 3, max: 20 } as const;

/** What a local part too short (or with nothing usable) is padded with. */
const FILLER = 'player';

/**
 * The preferred username for an e-mail address. A `+tag` is dropped (it labels mail, not the
 * person); dots and dashes become underscores so `john.doe` stays readable as `john_doe`.
 */
export function usernameBase(email: string): string {
  const local = email.slice(0, Math.max(0, email.lastIndexOf('@'))) || email;
  const cleaned = (local.split('+', 1)[0] ?? '')
    .toLowerCase()
    .replace(/[.-]+/g, '_')
    .replace(/[^a-z0-9_]/g, '')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (cleaned.length === 0) return FILLER;
  const padded = cleaned.length < usernameLength.min ? `${cleaned}_${FILLER}` : cleaned;
  return padded.slice(0, usernameLength.max);
}

/** `base` with a numeric suffix, the base shortened so that the whole stays within 20. */
export function withSuffix(base: string, suffix: number): string {
  const digits = String(suffix);
  return `${base.slice(0, usernameLength.max - digits.length)}${digits}`;
}

/**
 * The username to try on attempt `attempt` (0 first): the base, then base1…base9, then random
 * four- and six-digit suffixes, so a popular name does not need hundreds of tries.
 */
export function usernameCandidate(base: string, attempt: number, random: () => number): string {
  if (attempt === 0) return base;
  if (attempt < 10) return withSuffix(base, attempt);
  const digits = attempt < 15 ? 4 : 6;
  const low = 10 ** (digits - 1);
  return withSuffix(base, low + Math.floor(random() * 9 * low));
}

/** How many candidates to try before giving up (a database problem by then, not bad luck). */
export const maxUsernameAttempts = 20;
