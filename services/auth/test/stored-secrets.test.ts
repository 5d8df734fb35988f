import { createHash } from 'node:crypto';
import { usersCollection } from '../src/adapters/users';
import { verifySecret } from '../src/adapters/secrets';
import { registerPlayer, startAuth, type TestAuth } from './support';

/** The parameters in a PHC string, e.g. `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`. */
function phcParameters(hash: string) {
  const [, algorithm, version, parameters = ''] = hash.split('$');
  const values: Record<string, number> = Object.fromEntries(
    parameters.split(',').map((pair) => {
      const [name = '', value = ''] = pair.split('=');
      return [name, Number(value)];
    }),
  );
  return { algorithm, version, m: values.m, t: values.t, p: values.p };
}

describe('stored secrets', () => {
  let auth: TestAuth;
  beforeEach(async () => {
    auth = await startAuth();
  });
  afterEach(() => auth.stop());

  const storedUser = (email: string) =>
    auth.infrastructure.documents.collection(usersCollection).findOne({ email });

  it("hashes passwords and codes with argon2id at or above OWASP's floor (19 MiB, 2 passes)", async () => {
    const { player, code } = await registerPlayer(auth);

    const user = await storedUser(player.email);

    for (const hash of [user?.passwordHash ?? '', user?.verification?.codeHash ?? '']) {
      const parameters = phcParameters(hash);
      expect(parameters).toMatchObject({ algorithm: 'argon2id', version: 'v=19', p: 1 });
      expect(parameters.m).toBeGreaterThanOrEqual(19_456);
      expect(parameters.t).toBeGreaterThanOrEqual(2);
    }
    expect(JSON.stringify(user)).not.toContain(player.password);
    expect(await verifySecret(user?.verification?.codeHash ?? '', code)).toBe(true);
  });

  it('keeps only a sha256 of the link token, and forgets the verification once verified', async () => {
    const { player, token } = await registerPlayer(auth);
    const pending = await storedUser(player.email);
    expect(pending?.verification?.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(pending)).not.toContain(token);

    await auth.client.verifyEmail({ proof: { case: 'token', value: token } });

    const verified = await storedUser(player.email);
    expect(verified?.isEmailVerified).toBe(true);
    expect(verified?.verification).toBeUndefined();
  });

  it('never returns the password hash or the pending verification', async () => {
    const { response } = await registerPlayer(auth);

    const wire = JSON.stringify(response.user, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );

    expect(wire).not.toMatch(/argon2|passwordHash|codeHash|tokenHash/);
  });

  it('keeps session ids out of the live store, storing their sha256 instead', async () => {
    const { sessionId } = await registerPlayer(auth);
    const hashed = createHash('sha256').update(sessionId).digest('hex');

    expect(await auth.infrastructure.store.hGetAll(`auth:session:${sessionId}`)).toEqual({});
    expect(await auth.infrastructure.store.hGetAll(`auth:session:${hashed}`)).toMatchObject({
      deviceId: expect.any(String),
    });
  });
});
