import { Code } from '@underdog/rpc';
import { newPlayer, registerPlayer, rpcFailure, startAuth, type TestAuth } from './support';

const validation = (message: string) => ({
  code: Code.InvalidArgument,
  reason: 'VALIDATION_FAILED',
  message,
});
const INVISIBLE = 'Display name must not contain invisible or control characters';
const RESERVED = 'Display name is reserved for the Underdog staff';

describe('display names', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it.each([
    ['zero-width spaces only', '\u200b\u200b'],
    ['a zero-width space inside', 'Al\u200bice'],
    ['a right-to-left override', 'Alice\u202egnp.exe'],
    ['a bidi isolate', 'Bob\u2066x\u2069'],
    ['a NUL', 'Bob\u0000'],
    ['a newline', 'Bob\nWinner'],
    ['a byte-order mark', '\ufeffCarol'],
    ['a soft hyphen', 'Ca\u00adrol'],
    ['a line separator', 'Bob\u2028Winner'],
    ['a variation selector after a letter', 'Bo\ufe0fb'],
    ['an ideographic variation selector', 'Eve\u{e0100}'],
    ['a Mongolian free variation selector', 'Dan\u180b'],
    ['an emoji selector standing alone', '\ufe0fDan'],
  ])('refuses %s on registration and profile update', async (_case, displayName) => {
    expect(await rpcFailure(auth.client.register(newPlayer({ displayName })))).toEqual(
      validation(INVISIBLE),
    );
    const { sessionId } = await registerPlayer(auth);
    expect(await rpcFailure(auth.client.updateProfile({ sessionId, displayName }))).toEqual(
      validation(INVISIBLE),
    );
  });

  it.each([
    ['Admin'],
    ['ADMINISTRATOR'],
    ['moderator'],
    ['Staff'],
    ['Underdog Support'],
    ['System'],
    ['\u0410dmin'], // Cyrillic А
    ['Аdmіn'], // Cyrillic А and і
    ['Adm1n'],
    ['AdmIn'],
    ['4dmin'],
    ['Ad min'],
    ['a.d.m.i.n'],
    ['Ａｄｍｉｎ'], // full-width
    ['Àdmin'],
    ['Suppоrt'], // Cyrillic о
    ['5upp0rt'],
    ['Underdog Admin'],
    ['UnderdogAdmin'],
    ['Admins'],
    ['The Admin'],
  ])('reserves %s, which imitates the staff', async (displayName) => {
    expect(await rpcFailure(auth.client.register(newPlayer({ displayName })))).toEqual(
      validation(RESERVED),
    );
    const { sessionId } = await registerPlayer(auth);
    expect(await rpcFailure(auth.client.updateProfile({ sessionId, displayName }))).toEqual(
      validation(RESERVED),
    );
  });

  it("accepts an emoji's own presentation selector, which is visible", async () => {
    const { sessionId } = await registerPlayer(auth);
    const answer = await auth.client.updateProfile({ sessionId, displayName: 'Ana \u2764\ufe0f' });
    expect(answer.user?.displayName).toBe('Ana \u2764\ufe0f');
  });

  it('lets an admin keep or take a staff name on the profile, and no one else', async () => {
    const admin = await startAuth({
      env: { ADMIN_EMAIL: 'boss@example.com', ADMIN_PASSWORD: 'first admin 1' },
    });
    try {
      const { session } = await admin.client.login({
        email: 'boss@example.com',
        password: 'first admin 1',
        deviceId: 'admin-laptop',
      });
      const sessionId = session?.id ?? '';
      for (const displayName of ['Admin', 'Underdog Support']) {
        const { user } = await admin.client.updateProfile({ sessionId, displayName });
        expect(user?.displayName).toBe(displayName);
      }
    } finally {
      await admin.stop();
    }
  });

  it.each([
    ['Bot 007', 'Bot 007'],
    ['José', 'José'],
    ['Jose\u0301', 'José'], // NFC: one code point
    ['Badminton Fan', 'Badminton Fan'],
    ['Staffan', 'Staffan'],
    ['Zoë Smith', 'Zoë Smith'],
    ['Иван', 'Иван'],
    ['李小龙', '李小龙'],
    ['  Night   Owl ', 'Night Owl'],
    ['Support Vector', 'Support Vector'],
  ])('accepts %s, stored as %s', async (displayName, stored) => {
    const { response } = await registerPlayer(auth, { displayName });
    expect(response.user?.displayName).toBe(stored);
  });

  it('counts the length after normalising', async () => {
    expect(
      await rpcFailure(auth.client.register(newPlayer({ displayName: '\u3000A\u3000' }))),
    ).toEqual(validation('Display name must be at least 2 characters'));
  });
});
