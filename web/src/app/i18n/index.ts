// The app's languages (issue 26): English, the spec's strings and the default, and Persian,
// laid out right to left. The choice is remembered on the device (localStorage).
import i18next, { type TFunction } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { TOTAL_ROUNDS } from '@underdog/rules';
import { en } from './en';
import { fa } from './fa';

export const LANGUAGES = ['en', 'fa'] as const;
export type Language = (typeof LANGUAGES)[number];
export type Direction = 'ltr' | 'rtl';
export type Translate = TFunction;

/** Where the chosen language is kept on the device. */
export const LANGUAGE_KEY = 'underdog.language';

/** Each language's name in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', fa: 'فارسی' };

/** The BCP 47 locale dates and numbers are formatted in. */
export const LOCALE_OF: Record<Language, string> = { en: 'en-US', fa: 'fa-IR' };

export function isLanguage(value: unknown): value is Language {
  return LANGUAGES.some((language) => language === value);
}

export function directionOf(language: Language): Direction {
  return language === 'fa' ? 'rtl' : 'ltr';
}

/** The remembered language, English when none (or storage is unavailable). */
export function storedLanguage(): Language {
  try {
    const stored = globalThis.localStorage?.getItem(LANGUAGE_KEY);
    return isLanguage(stored) ? stored : 'en';
  } catch {
    return 'en';
  }
}

export const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, fa: { translation: fa } },
  lng: storedLanguage(),
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  // The game's numbers come from its rules, never from a catalog: `{{totalRounds}}` in any string.
  interpolation: { escapeValue: false, defaultVariables: { totalRounds: TOTAL_ROUNDS } },
  initAsync: false,
  returnNull: false,
});

/** The language in use now. */
export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : 'en';
}

/** The page's lang and dir follow the language (screen readers, the browser's own layout). */
function applyToDocument(language: Language): void {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
}
applyToDocument(currentLanguage());
i18n.on('languageChanged', (language) => {
  if (isLanguage(language)) applyToDocument(language);
});

/** Switches the language and remembers it on the device. */
export function setLanguage(language: Language): void {
  try {
    globalThis.localStorage?.setItem(LANGUAGE_KEY, language);
  } catch {
    // Private windows may refuse storage: the switch still applies for this visit.
  }
  void i18n.changeLanguage(language);
}

/** A number in the language's digits and grouping. */
export function formatNumber(value: number, language: Language = currentLanguage()): string {
  return new Intl.NumberFormat(LOCALE_OF[language]).format(value);
}

/** A date and time in the language's calendar and words. */
export function formatDateTime(
  value: Date | number,
  options: Intl.DateTimeFormatOptions,
  language: Language = currentLanguage(),
): string {
  return new Intl.DateTimeFormat(LOCALE_OF[language], options).format(value);
}

/** A text's ASCII digits in the language's own (Persian: ۰-۹), e.g. a clock like 02:03:04. */
export function localizeDigits(text: string, language: Language = currentLanguage()): string {
  if (language === 'en') return text;
  const digits = new Intl.NumberFormat(LOCALE_OF[language], { useGrouping: false });
  return text.replace(/\d/g, (digit) => digits.format(Number(digit)));
}
