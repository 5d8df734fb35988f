/**
 * Display-name rules beyond the form's length (server rules, issue 24 L5). A display name is
 * shown to every player (lists, the winner announcement), so it must not hide text, reorder it
 * or pass for the staff. Pure functions; `validation.ts` turns them into form messages.
 */

export const displayNameMessages = {
  invisible: 'Display name must not contain invisible or control characters',
  reserved: 'Display name is reserved for the Underdog staff',
} as const;

/**
 * Control (Cc), format (Cf: zero-width, bidi embeddings, overrides and isolates, the BOM, soft
 * hyphen), private-use (Co), lone surrogates (Cs), line and paragraph separators, plus the
 * letters and marks that render as nothing (Hangul fillers, braille blank, combining grapheme
 * joiner) and the variation selectors (U+FE00–FE0F, U+E0100–E01EF, the Mongolian U+180B–180D
 * and U+180F), which change nothing visible after a letter (issue 37, 7).
 */
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u034f\u115f\u1160\u180b-\u180f\u2800\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;

/**
 * An emoji's own presentation selector (text U+FE0E or emoji U+FE0F right after a pictograph,
 * "❤️"): visible, and part of how the emoji is typed, so not counted as a hidden mark.
 */
const EMOJI_PRESENTATION = /(\p{Extended_Pictographic})[\ufe0e\ufe0f]/gu;

export function hasInvisibleCharacters(name: string): boolean {
  return INVISIBLE.test(name.replace(EMOJI_PRESENTATION, '$1'));
}

/** NFC, every run of white space as one space, trimmed: what is stored and shown. */
export function normaliseDisplayName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** Words that may only stand next to other such words or fillers ("Underdog Support"). */
const STAFF_WORDS = ['staff', 'support', 'underdog', 'system', 'sysadmin', 'root'];
/** Words that pass for the staff wherever they stand ("Admin Bob"). */
const STAFF_TITLES = ['admin', 'administrator', 'moderator'];
/** Words that add nothing to a staff name ("The Admin", "Official Support Team"). */
const FILLERS = ['the', 'team', 'official', 'real', 'hq', 'help', 'desk'];

/**
 * Lookalikes folded to the Latin letter they imitate, after NFKC and lower-casing: the common
 * Cyrillic and Greek homoglyphs, digits and symbols. `i`, `l`, `1`, `|` and `!` all become `l`
 * so that "Adm1n", "AdmIn" and "Admln" meet.
 */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'l',
  ї: 'l',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'l',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ς: 's',
  ω: 'w',
  '0': 'o',
  '1': 'l',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '|': 'l',
  '!': 'l',
  i: 'l',
};

/** The letters a word looks like: NFKC, case-folded, accents dropped, lookalikes folded. */
function skeleton(word: string): string {
  const folded = word.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  let out = '';
  for (const char of folded) out += CONFUSABLES[char] ?? char;
  return out
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/[^a-z]/g, '');
}

const titles = new Set(STAFF_TITLES.map(skeleton));
const staffWords = new Set([...STAFF_TITLES, ...STAFF_WORDS].map(skeleton));
const fillers = new Set(FILLERS.map(skeleton));

const isTitle = (word: string) => titles.has(word) || titles.has(word.replace(/s$/, ''));
const isStaffWord = (word: string) =>
  staffWords.has(word) || staffWords.has(word.replace(/s$/, ''));

/**
 * Whether `name` passes for the staff: a staff title anywhere ("Admin Bob", "Adm1n"), a name
 * made only of staff words and fillers ("Underdog Support", "The Admin"), or one that spells
 * them with its separators removed ("a.d.m.i.n", "Ad min"). Ordinary words that merely contain
 * one ("Badminton", "Staffan", "Support Vector") are fine.
 */
export function imitatesStaff(name: string): boolean {
  const words = name
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}@$|!]+|(?<=\p{Ll})(?=\p{Lu})/u)
    .map(skeleton)
    .filter((word) => word.length > 0);
  if (words.some(isTitle)) return true;
  const meaningful = words.filter((word) => !fillers.has(word));
  if (meaningful.length > 0 && meaningful.every(isStaffWord)) return true;
  return spellsStaffWords(words.join(''));
}

/** Whether `letters` splits into staff words and fillers, with at least one staff word. */
function spellsStaffWords(letters: string): boolean {
  if (letters.length === 0) return false;
  // reachable[i]: letters[0, i) splits; the value says whether a staff word was used.
  const reachable: (boolean | undefined)[] = [false];
  for (let end = 1; end <= letters.length; end += 1) {
    for (let start = 0; start < end; start += 1) {
      const before = reachable[start];
      if (before === undefined) continue;
      const word = letters.slice(start, end);
      const staff = isStaffWord(word);
      if (!staff && !fillers.has(word)) continue;
      reachable[end] = (reachable[end] ?? false) || before || staff;
    }
  }
  return reachable[letters.length] === true;
}
