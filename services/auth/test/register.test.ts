import { Role } from '@underdog/proto';
import { Code } from '@underdog/rpc';
import { newPlayer, registerPlayer, rpcFailure, startAuth, type TestAuth } from './support';

describe('registering', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it('creates an unverified user with a session and tells the player to check their e-mail', async () => {
    const { player, response } = await registerPlayer(auth, {
      email: '  Alice.Smith@Example.COM ',
      displayName: '  Alice  ',
    });

    expect(response.message).toBe('Account created! Check your e-mail for the verification code.');
    expect(response.user).toMatchObject({
      email: 'alice.smith@example.com',
      username: 'alice_smith',
      displayName: 'Alice',
      role: Role.USER,
      isEmailVerified: false,
      statistics: {
        gamesPlayed: 0,
        wins: 0,
        totalPrizes: 0,
        roundsWon: 0,
        totalRoundsPlayed: 0,
        longestWinStreak: 0,
        currentWinStreak: 0,
        biggestTournamentSize: 0,
      },
    });
    expect(response.user?.statistics?.firstWinDate).toBeUndefined();
    expect(response.user?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.session).toMatchObject({
      userId: response.user?.id,
      deviceId: player.deviceId,
    });
    // 32 random bytes, base64url: at least 128 bits, and safe in a cookie.
    expect(response.session?.id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const session = await auth.client.getSession({ sessionId: response.session?.id ?? '' });
    expect(session.user?.isEmailVerified).toBe(false);
  });

  it('asks for the verification e-mail on notification.requests, keyed by user id', async () => {
    const { user } = await registerPlayer(auth, { email: 'bob@example.com', displayName: 'Bob' });

    const [request] = auth.mailbox.raw;
    expect(request?.key).toBe(user.id);
    expect(request?.headers['event-type']).toBe('underdog.events.v1.VerificationEmailRequested');
    expect(request?.headers['event-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(request?.value).toMatchObject({ email: 'bob@example.com', displayName: 'Bob' });
    expect(request?.value.code).toMatch(/^\d{6}$/);
    expect(request?.value.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('announces UserRegistered on user.events without any secret', async () => {
    const { user, code, token, player } = await registerPlayer(auth, {
      email: 'carol@example.com',
      displayName: 'Carol',
    });

    expect(auth.userEvents).toHaveLength(1);
    const [event] = auth.userEvents;
    expect(event?.key).toBe(user.id);
    expect(event?.headers['event-type']).toBe('underdog.events.v1.UserRegistered');
    expect(event?.headers['event-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(event?.value.userId).toBe(user.id);
    expect(event?.value.kind).toEqual({
      case: 'registered',
      value: expect.objectContaining({
        email: 'carol@example.com',
        displayName: 'Carol',
        username: 'carol',
      }),
    });
    const wire = JSON.stringify(event?.value, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    for (const secret of [code, token, player.password]) expect(wire).not.toContain(secret);
  });

  it('derives usernames from the e-mail and adds a number when one is taken', async () => {
    const usernames: string[] = [];
    for (const email of [
      'sam@one.example',
      'SAM@two.example',
      'sam+games@three.example',
      'al@example.com',
      'x.y.z-averyveryverylongname@example.com',
      'x.y.z-averyveryverylongname@elsewhere.example',
      "o'brien@example.com",
    ]) {
      const { user } = await registerPlayer(auth, { email });
      usernames.push(user.username);
    }

    expect(usernames).toEqual([
      'sam',
      'sam1',
      'sam2',
      'al_player',
      'x_y_z_averyveryveryl',
      'x_y_z_averyveryvery1',
      'obrien',
    ]);
    for (const username of usernames) expect(username).toMatch(/^[a-z0-9_]{3,20}$/);
  });

  it('refuses an e-mail that is already registered, whatever its case', async () => {
    await registerPlayer(auth, { email: 'dave@example.com' });

    const failure = await rpcFailure(
      auth.client.register(newPlayer({ email: ' DAVE@Example.com' })),
    );

    expect(failure).toEqual({
      code: Code.AlreadyExists,
      reason: 'EMAIL_TAKEN',
      message: 'Username might already be taken or invalid data provided',
    });
  });

  it.each([
    ['an invalid e-mail', { email: 'not-an-email' }, 'Please enter a valid email address'],
    ['an empty e-mail', { email: '' }, 'Please enter a valid email address'],
    [
      'a one-letter display name',
      { displayName: ' A ' },
      'Display name must be at least 2 characters',
    ],
    [
      'a long display name',
      { displayName: 'x'.repeat(51) },
      'Display name must be at most 50 characters',
    ],
    ['a short password', { password: 'abc1' }, 'Password must be at least 8 characters'],
    [
      'a password without digits',
      { password: 'abcdefghij' },
      'Password must contain at least one letter and one number',
    ],
    [
      'a password without letters',
      { password: '1234567890' },
      'Password must contain at least one letter and one number',
    ],
    [
      'a 129-character password',
      { password: `a1${'x'.repeat(127)}` },
      'Password must be at most 128 characters',
    ],
    [
      'several problems (the first field wins)',
      { email: 'bad', password: 'x' },
      'Please enter a valid email address',
    ],
  ])('rejects %s with the form message', async (_case, overrides, message) => {
    const failure = await rpcFailure(auth.client.register(newPlayer(overrides)));

    expect(failure).toEqual({ code: Code.InvalidArgument, reason: 'VALIDATION_FAILED', message });
    expect(auth.mailbox.raw).toHaveLength(0);
  });
});
