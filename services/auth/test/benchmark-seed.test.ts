import { ConfigError } from '@underdog/kit';
import { Code } from '@underdog/rpc';
import { authConfig } from '../src/config';
import { rpcFailure, startAuth, type TestAuth } from './support';

describe('benchmark seeding (SeedBenchmarkUsers)', () => {
  let auth: TestAuth;
  afterEach(() => auth.stop());

  it('creates verified users with a live session each, sending no e-mail', async () => {
    auth = await startAuth({ env: { BENCHMARK_SEED: 'on' } });

    const { users } = await auth.client.seedBenchmarkUsers({ count: 3, label: 'run1' });

    expect(users.map((user) => user.username)).toEqual(['b_run1_0', 'b_run1_1', 'b_run1_2']);
    expect(users.map((user) => user.deviceId)).toEqual([
      'bench-run1-0',
      'bench-run1-1',
      'bench-run1-2',
    ]);
    for (const seeded of users) {
      const { user, session } = await auth.client.getSession({ sessionId: seeded.sessionId });
      expect(user).toMatchObject({ id: seeded.userId, isEmailVerified: true });
      expect(session?.deviceId).toBe(seeded.deviceId);
    }
    expect(auth.mailbox.raw).toHaveLength(0);
  });

  it('refuses a label already used (unique e-mails and usernames)', async () => {
    auth = await startAuth({ env: { BENCHMARK_SEED: 'on' } });
    await auth.client.seedBenchmarkUsers({ count: 1, label: 'same' });

    await expect(auth.client.seedBenchmarkUsers({ count: 1, label: 'same' })).rejects.toThrow();
  });

  it('is refused unless BENCHMARK_SEED=on, and bounded to 5000 users a call', async () => {
    auth = await startAuth();
    expect(await rpcFailure(auth.client.seedBenchmarkUsers({ count: 1, label: 'x' }))).toEqual(
      expect.objectContaining({ code: Code.PermissionDenied, reason: 'BENCHMARK_SEED_OFF' }),
    );
    await auth.stop();

    auth = await startAuth({ env: { BENCHMARK_SEED: 'on' } });
    expect(await rpcFailure(auth.client.seedBenchmarkUsers({ count: 5001, label: 'x' }))).toEqual(
      expect.objectContaining({ code: Code.InvalidArgument, reason: 'VALIDATION_FAILED' }),
    );
  });

  it('cannot be turned on in production', () => {
    expect(authConfig({ BENCHMARK_SEED: 'on' }).benchmarkSeed).toBe(true);
    expect(authConfig({}).benchmarkSeed).toBe(false);
    expect(() => authConfig({ BENCHMARK_SEED: 'on', NODE_ENV: 'production' })).toThrow(ConfigError);
  });
});
