import { Code } from '@underdog/rpc';
import { registerPlayer, rpcFailure, startAuth, type TestAuth } from './support';

const validation = (message: string) => ({
  code: Code.InvalidArgument,
  reason: 'VALIDATION_FAILED',
  message,
});

describe('profile and password', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  it('updates the display name and announces it', async () => {
    const { sessionId, user } = await registerPlayer(auth);

    const updated = await auth.client.updateProfile({ sessionId, displayName: '  Night Owl ' });

    expect(updated.user).toMatchObject({ id: user.id, displayName: 'Night Owl' });
    expect((await auth.client.getSession({ sessionId })).user?.displayName).toBe('Night Owl');
    const last = auth.userEvents.at(-1);
    expect(last?.value.kind).toEqual({
      case: 'profileUpdated',
      value: expect.objectContaining({ displayName: 'Night Owl' }),
    });
  });

  it('checks the display name with the form messages', async () => {
    const { sessionId } = await registerPlayer(auth);

    expect(await rpcFailure(auth.client.updateProfile({ sessionId, displayName: 'x' }))).toEqual(
      validation('Display name must be at least 2 characters'),
    );
    expect(
      await rpcFailure(auth.client.updateProfile({ sessionId, displayName: 'x'.repeat(51) })),
    ).toEqual(validation('Display name must be at most 50 characters'));
  });

  it('needs a session to update a profile', async () => {
    expect(
      await rpcFailure(auth.client.updateProfile({ sessionId: 'nope', displayName: 'Someone' })),
    ).toMatchObject({ code: Code.Unauthenticated, reason: 'NO_SESSION' });
  });

  it('changes the password: other sessions end, the old password stops working', async () => {
    const { player, sessionId: registered, user } = await registerPlayer(auth);
    const elsewhere = await auth.client.login({
      email: player.email,
      password: player.password,
      deviceId: 'tablet',
    });

    const changed = await auth.client.changePassword({
      sessionId: registered,
      currentPassword: player.password,
      newPassword: 'new secret 2',
    });

    const fresh = changed.session?.id ?? '';
    expect(fresh).not.toBe(registered);
    expect(changed.session).toMatchObject({ userId: user.id, deviceId: player.deviceId });
    expect((await auth.client.getSession({ sessionId: fresh })).user?.id).toBe(user.id);
    for (const ended of [registered, elsewhere.session?.id ?? '']) {
      expect(await rpcFailure(auth.client.getSession({ sessionId: ended }))).toMatchObject({
        reason: 'NO_SESSION',
      });
    }
    expect(
      await rpcFailure(
        auth.client.login({ email: player.email, password: player.password, deviceId: '' }),
      ),
    ).toMatchObject({ reason: 'INVALID_CREDENTIALS' });
    await auth.client.login({ email: player.email, password: 'new secret 2', deviceId: '' });
    expect(auth.userEvents.at(-1)?.headers['event-type']).toBe(
      'underdog.events.v1.UserPasswordChanged',
    );
  });

  it('refuses a wrong current password and keeps the sessions', async () => {
    const { sessionId } = await registerPlayer(auth);

    const outcome = await rpcFailure(
      auth.client.changePassword({
        sessionId,
        currentPassword: 'not it 123',
        newPassword: 'new secret 2',
      }),
    );

    expect(outcome).toEqual({
      code: Code.InvalidArgument,
      reason: 'WRONG_PASSWORD',
      message: 'Current password is incorrect',
    });
    await auth.client.getSession({ sessionId });
  });

  it.each([
    [{ currentPassword: '', newPassword: 'new secret 2' }, 'Current password is required'],
    [{ currentPassword: 'x', newPassword: 'short1' }, 'New password must be at least 8 characters'],
    [
      { currentPassword: 'x', newPassword: 'no digits here' },
      'New password must contain at least one letter and one number',
    ],
  ])('checks a password change with the form messages (%o)', async (passwords, message) => {
    const { sessionId } = await registerPlayer(auth);

    const outcome = await rpcFailure(auth.client.changePassword({ sessionId, ...passwords }));

    expect(outcome).toEqual(validation(message));
  });
});
