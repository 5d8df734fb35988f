import { ApolloError } from '@apollo/client';
import { GraphQLError } from 'graphql';
import { messageOf } from '../src/app/errors';
import { setLanguage } from '../src/app/i18n';
import { en } from '../src/app/i18n/en';
import { fa } from '../src/app/i18n/fa';

/** Every key path of a catalog, e.g. `game.round`, and the value's {{placeholders}}. */
function entriesOf(catalog: object, prefix = ''): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') {
      const names = [...value.matchAll(/{{\s*(\w+)/g)].map((match) => match[1]!);
      entries.set(path, names.sort());
    } else {
      for (const [nested, names] of entriesOf(value as object, path)) entries.set(nested, names);
    }
  }
  return entries;
}

describe('the translation catalogs', () => {
  const english = entriesOf(en);
  const persian = entriesOf(fa);

  it('have the same keys in English and Persian', () => {
    expect([...persian.keys()].sort()).toEqual([...english.keys()].sort());
  });

  it('use the same placeholders in each translation as in English', () => {
    const mismatched = [...english].filter(
      ([key, names]) => JSON.stringify(persian.get(key)) !== JSON.stringify(names),
    );
    expect(mismatched.map(([key]) => key)).toEqual([]);
  });

  it('leave no Persian string empty or untranslated English', () => {
    const suspicious = [...english.keys()].filter((key) => {
      const value = key.split('.').reduce<unknown>((node, part) => (node as never)[part], fa);
      if (typeof value !== 'string' || value.trim() === '') return true;
      const words = value.replace(/{{[^}]*}}/g, '');
      return /[A-Za-z]/.test(words) && !/[\u0600-\u06FF]/.test(words);
    });
    expect(suspicious).toEqual([]);
  });
});

describe('server errors in each language', () => {
  const voteClosed = new ApolloError({
    graphQLErrors: [
      new GraphQLError('Voting for this round has closed', {
        extensions: { code: 'VOTING_CLOSED' },
      }),
    ],
  });
  afterEach(() => setLanguage('en'));

  it("shows the server's own message in English", () => {
    setLanguage('en');
    expect(messageOf(voteClosed, 'Please try again.')).toBe('Voting for this round has closed');
  });

  it("maps the error's code to the Persian message", () => {
    setLanguage('fa');
    expect(messageOf(voteClosed, 'fallback')).toBe(fa.errors.VOTING_CLOSED);
  });

  it('falls back for a code the catalog does not know', () => {
    setLanguage('fa');
    const odd = new ApolloError({
      graphQLErrors: [new GraphQLError('odd', { extensions: { code: 'SOMETHING_NEW' } })],
    });
    expect(messageOf(odd, 'fallback')).toBe('fallback');
  });
});
