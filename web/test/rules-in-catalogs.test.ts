import { TOTAL_ROUNDS } from '@underdog/rules';
import { i18n, setLanguage } from '../src/app/i18n';
import { en } from '../src/app/i18n/en';
import { fa } from '../src/app/i18n/fa';

/** Every string of a catalog, flattened. */
function strings(catalog: object): string[] {
  return Object.values(catalog).flatMap((value: unknown) =>
    typeof value === 'string' ? [value] : strings(value as object),
  );
}

describe("the game's numbers in the catalogs", () => {
  afterEach(() => setLanguage('en'));

  it('come from @underdog/rules, not from the strings', () => {
    // A catalog that spelled the number of rounds out would disagree with the game once the
    // rule changed; the strings say {{totalRounds}} instead.
    for (const text of [...strings(en), ...strings(fa)]) {
      expect(text).not.toMatch(/(^|[^\d{])17([^\d]|$)|۱۷/);
    }
    expect(i18n.t('offline.roundOf', { round: 3 })).toBe(`Round 3 of ${TOTAL_ROUNDS}`);
    expect(i18n.t('offline.allComplete')).toBe(`All ${TOTAL_ROUNDS} Rounds Complete!`);
  });

  it('are written in Persian digits in Persian', () => {
    setLanguage('fa');
    const persian = new Intl.NumberFormat('fa').format(TOTAL_ROUNDS);
    expect(i18n.t('offline.allComplete')).toContain(persian);
  });
});
