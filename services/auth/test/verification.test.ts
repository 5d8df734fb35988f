import { Code } from '@underdog/rpc';
// The module object itself (a CommonJS module): the adapter calls its `verify`, which the spy sees.
import argon2 from 'argon2';
import {
  expiresAt,
  minutes,
  registerPlayer,
  rpcFailure,
  startAuth,
  wrongCode,
  type TestAuth,
} from './support';

const failure = (reason: string, message: string) => ({
  code: Code.InvalidArgument,
  reason,
  message,
});
const codeInvalid = failure('CODE_INVALID', 'Invalid verification code');
const codeVoided = failure('CODE_VOIDED', 'Too many wrong attempts. Request a new code.');
const codeExpired = failure('CODE_EXPIRED', 'Verification code has expired. Request a new code.');
const tokenInvalid = failure('TOKEN_INVALID', 'Invalid or expired verification link');
const resendTooSoon = {
  code: Code.ResourceExhausted,
  reason: 'RESEND_TOO_SOON',
  message: 'Please wait a minute before requesting another code.',
};

describe('e-mail verification', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  const verifyCode = (code: string, owner: { sessionId?: string; email?: string }) =>
    auth.client.verifyEmail({ proof: { case: 'code', value: code }, ...owner });
  const verifyToken = (token: string, sessionId = '') =>
    auth.client.verifyEmail({ proof: { case: 'token', value: token }, sessionId });

  it("verifies the session's user with the e-mailed code and announces it", async () => {
    const { sessionId, code, user } = await registerPlayer(auth);

    const verified = await verifyCode(code, { sessionId });

    expect(verified.user).toMatchObject({ id: user.id, isEmailVerified: true });
    const session = await auth.client.getSession({ sessionId });
    expect(session.user?.isEmailVerified).toBe(true);
    expect(auth.userEvents.map((event) => event.headers['event-type'])).toEqual([
      'underdog.events.v1.UserRegistered',
      'underdog.events.v1.UserEmailVerified',
    ]);
  });

  it('verifies by e-mail address when there is no session, without revealing the user', async () => {
    const { code, player } = await registerPlayer(auth, { email: 'gina@example.com' });

    const verified = await verifyCode(code, { email: ' Gina@Example.com ' });

    expect(verified.user).toBeUndefined();
    const { email, password } = player;
    const login = await auth.client.login({ email, password, deviceId: 'another-device' });
    expect(login.user?.isEmailVerified).toBe(true);
    expect(auth.userEvents.map((event) => event.headers['event-type'])).toEqual([
      'underdog.events.v1.UserRegistered',
      'underdog.events.v1.UserEmailVerified',
    ]);
  });

  it('answers a wrong code by e-mail alike for unknown, unverified, verified, voided and expired accounts', async () => {
    const unverified = await registerPlayer(auth);
    const verified = await registerPlayer(auth);
    await verifyCode(verified.code, { sessionId: verified.sessionId });
    const voided = await registerPlayer(auth);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await rpcFailure(verifyCode(wrongCode(voided.code), { sessionId: voided.sessionId }));
    }
    const expired = await registerPlayer(auth);
    auth.clock.advance(minutes(10));
    const fresh = await registerPlayer(auth);

    const outcomes = await Promise.all(
      [
        { email: 'ghost@example.com', code: '123456' },
        { email: fresh.player.email, code: wrongCode(fresh.code) },
        { email: unverified.player.email, code: '123456' },
        { email: verified.player.email, code: wrongCode(verified.code) },
        { email: verified.player.email, code: verified.code },
        { email: voided.player.email, code: voided.code },
        { email: expired.player.email, code: expired.code },
      ].map(({ email, code }) => rpcFailure(verifyCode(code, { email }))),
    );

    expect(outcomes).toEqual(Array.from({ length: 7 }, () => codeInvalid));
    // The verified account was not "verified again": no second event.
    expect(
      auth.userEvents.filter(
        (event) => event.headers['event-type'] === 'underdog.events.v1.UserEmailVerified',
      ),
    ).toHaveLength(1);
  });

  it('compares one argon2 hash for every wrong code by e-mail, whatever the account', async () => {
    const comparisons = jest.spyOn(argon2, 'verify');
    try {
      const unverified = await registerPlayer(auth);
      const verified = await registerPlayer(auth);
      await verifyCode(verified.code, { sessionId: verified.sessionId });
      const expired = await registerPlayer(auth);
      auth.clock.advance(minutes(10));
      const pending = await registerPlayer(auth);

      for (const email of [
        'ghost@example.com',
        verified.player.email,
        expired.player.email,
        pending.player.email,
      ]) {
        comparisons.mockClear();
        await rpcFailure(verifyCode(wrongCode(unverified.code), { email }));
        expect({ email, comparisons: comparisons.mock.calls.length }).toEqual({
          email,
          comparisons: 1,
        });
      }
    } finally {
      comparisons.mockRestore();
    }
  });

  it('still tells its own session why a code failed', async () => {
    const { sessionId, code } = await registerPlayer(auth);
    auth.clock.advance(minutes(10));

    expect(await rpcFailure(verifyCode(code, { sessionId, email: 'ghost@example.com' }))).toEqual(
      codeExpired,
    );
  });

  it('answers an already verified user with the user (verifying twice is harmless)', async () => {
    const { sessionId, code } = await registerPlayer(auth);
    await verifyCode(code, { sessionId });

    const again = await verifyCode(code, { sessionId });

    expect(again.user?.isEmailVerified).toBe(true);
    expect(auth.userEvents).toHaveLength(2);
  });

  it('refuses a wrong code, and the fifth wrong one voids the code for good', async () => {
    const { sessionId, code } = await registerPlayer(auth);

    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect(await rpcFailure(verifyCode(wrongCode(code), { sessionId }))).toEqual(codeInvalid);
    }
    expect(await rpcFailure(verifyCode(wrongCode(code), { sessionId }))).toEqual(codeVoided);

    expect(await rpcFailure(verifyCode(code, { sessionId }))).toEqual(codeVoided);
  });

  it('counts concurrent wrong guesses too: no more than five are ever checked', async () => {
    const { sessionId, code } = await registerPlayer(auth);

    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => rpcFailure(verifyCode(wrongCode(code), { sessionId }))),
    );

    expect(outcomes.filter((outcome) => outcome.reason === 'CODE_INVALID')).toHaveLength(4);
    expect(outcomes.filter((outcome) => outcome.reason === 'CODE_VOIDED')).toHaveLength(4);
    expect(await rpcFailure(verifyCode(code, { sessionId }))).toEqual(codeVoided);
  });

  it("does not let wrong codes sent with only the e-mail void the code the owner's session holds", async () => {
    const { sessionId, code, player } = await registerPlayer(auth);

    for (let attempt = 1; attempt <= 6; attempt += 1) {
      expect(await rpcFailure(verifyCode(wrongCode(code), { email: player.email }))).toEqual(
        codeInvalid,
      );
    }

    const verified = await verifyCode(code, { sessionId });
    expect(verified.user?.isEmailVerified).toBe(true);
  });

  it('counts attempts by e-mail apart: after five wrong ones, even the right code by e-mail is refused', async () => {
    const { sessionId, code, player } = await registerPlayer(auth);
    await Promise.all(
      Array.from({ length: 8 }, () =>
        rpcFailure(verifyCode(wrongCode(code), { email: player.email })),
      ),
    );

    expect(await rpcFailure(verifyCode(code, { email: player.email }))).toEqual(codeInvalid);
    expect(await rpcFailure(verifyCode(wrongCode(code), { sessionId }))).toEqual(codeInvalid);
    expect((await verifyCode(code, { sessionId })).user?.isEmailVerified).toBe(true);
  });

  it("lets the owner's own wrong tries still void the code, whatever was tried by e-mail", async () => {
    const { sessionId, code, player } = await registerPlayer(auth);
    await rpcFailure(verifyCode(wrongCode(code), { email: player.email }));
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect(await rpcFailure(verifyCode(wrongCode(code), { sessionId }))).toEqual(codeInvalid);
    }
    expect(await rpcFailure(verifyCode(wrongCode(code), { sessionId }))).toEqual(codeVoided);
    expect(await rpcFailure(verifyCode(code, { email: player.email }))).toEqual(codeInvalid);
  });

  it('accepts the right code on the fifth try', async () => {
    const { sessionId, code } = await registerPlayer(auth);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await rpcFailure(verifyCode(wrongCode(code), { sessionId }));
    }

    const verified = await verifyCode(code, { sessionId });

    expect(verified.user?.isEmailVerified).toBe(true);
  });

  it('refuses a code after its 10 minutes', async () => {
    const { sessionId, code, player } = await registerPlayer(auth);
    const [mail] = auth.mailbox.all(player.email);
    expect(expiresAt(mail!)).toEqual(new Date(auth.clock.now().getTime() + minutes(10)));

    auth.clock.advance(minutes(10));

    expect(await rpcFailure(verifyCode(code, { sessionId }))).toEqual(codeExpired);
  });

  it('checks the code format with the form messages', async () => {
    const { sessionId } = await registerPlayer(auth);

    expect(await rpcFailure(verifyCode('12345', { sessionId }))).toEqual(
      failure('VALIDATION_FAILED', 'Verification code must be 6 digits'),
    );
    expect(await rpcFailure(verifyCode('12a456', { sessionId }))).toEqual(
      failure('VALIDATION_FAILED', 'Verification code must contain only numbers'),
    );
  });

  it('gives an unknown e-mail the answer of a wrong code', async () => {
    const outcome = await rpcFailure(verifyCode('123456', { email: 'ghost@example.com' }));

    expect(outcome).toEqual(codeInvalid);
  });

  it('verifies with the link token alone, once', async () => {
    const { token, user } = await registerPlayer(auth);

    const verified = await verifyToken(token);

    expect(verified.user).toMatchObject({ id: user.id, isEmailVerified: true });
    expect(await rpcFailure(verifyToken(token))).toEqual(tokenInvalid);
  });

  it('treats a second click on the link as success when the session is already verified', async () => {
    const { token, sessionId } = await registerPlayer(auth);
    await verifyToken(token);

    const again = await verifyToken(token, sessionId);

    expect(again.user?.isEmailVerified).toBe(true);
  });

  it('refuses made-up and expired link tokens', async () => {
    const { token } = await registerPlayer(auth);
    expect(await rpcFailure(verifyToken('made-up'))).toEqual(tokenInvalid);

    auth.clock.advance(minutes(10));

    expect(await rpcFailure(verifyToken(token))).toEqual(tokenInvalid);
  });

  it('resends a new code and link that replace the old ones', async () => {
    const { sessionId, code, token, player } = await registerPlayer(auth);
    auth.clock.advance(minutes(1));

    const resent = await auth.client.resendVerification({ email: player.email });

    expect(resent.message).toBe('A new verification email has been sent.');
    const mail = await auth.mailbox.next(player.email);
    expect(mail.token).not.toBe(token);
    if (mail.code !== code) {
      expect(await rpcFailure(verifyCode(code, { sessionId }))).toEqual(codeInvalid);
    }
    expect(await rpcFailure(verifyToken(token))).toEqual(tokenInvalid);
    const verified = await verifyCode(mail.code, { sessionId });
    expect(verified.user?.isEmailVerified).toBe(true);
  });

  it('gives a voided or expired code a fresh start after a resend', async () => {
    const { sessionId, code, player } = await registerPlayer(auth);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await rpcFailure(verifyCode(wrongCode(code), { sessionId }));
    }
    auth.clock.advance(minutes(11));

    await auth.client.resendVerification({ email: player.email });
    const mail = await auth.mailbox.next(player.email);

    expect((await verifyCode(mail.code, { sessionId })).user?.isEmailVerified).toBe(true);
  });

  it('allows one resend a minute per account, counting the registration e-mail', async () => {
    const { player } = await registerPlayer(auth);

    auth.clock.advance(minutes(1) - 1);
    expect(await rpcFailure(auth.client.resendVerification({ email: player.email }))).toEqual(
      resendTooSoon,
    );
    auth.clock.advance(1);
    await auth.client.resendVerification({ email: player.email });
    expect(await rpcFailure(auth.client.resendVerification({ email: player.email }))).toEqual(
      resendTooSoon,
    );

    expect(auth.mailbox.all(player.email)).toHaveLength(2);
  });

  it('answers a resend for an unknown or verified address like a real one, sending nothing', async () => {
    const { player, sessionId, code } = await registerPlayer(auth);
    await verifyCode(code, { sessionId });
    auth.clock.advance(minutes(1));

    const unknown = await auth.client.resendVerification({ email: 'ghost@example.com' });
    const verified = await auth.client.resendVerification({ email: player.email });

    expect(unknown.message).toBe('A new verification email has been sent.');
    expect(verified.message).toBe('A new verification email has been sent.');
    // The marker: every e-mail requested so far is read (the topic to its end), not a pause.
    await auth.mailbox.caughtUp();
    expect(auth.mailbox.raw).toHaveLength(1);
    // The limit applies to unknown addresses too, so it reveals nothing either.
    expect(
      await rpcFailure(auth.client.resendVerification({ email: 'ghost@example.com' })),
    ).toEqual(resendTooSoon);
  });

  it('checks the address of a resend', async () => {
    expect(await rpcFailure(auth.client.resendVerification({ email: 'nope' }))).toEqual(
      failure('VALIDATION_FAILED', 'Please enter a valid email address'),
    );
  });
});
