import { Role, type ActorSchema, type MessageShape } from '@underdog/proto';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  userMessage,
  validPassword,
  type TestGateway,
} from './support';

type Actor = MessageShape<typeof ActorSchema>;

describe('POST /api/benchmark/players (the benchmark seam)', () => {
  let gateway: TestGateway;
  afterEach(() => gateway.stop());

  const seeded = [
    { userId: 'u-1', username: 'b_x_0', sessionId: 's-1', deviceId: 'bench-x-0' },
    { userId: 'u-2', username: 'b_x_1', sessionId: 's-2', deviceId: 'bench-x-1' },
  ];

  async function start(env: Record<string, string>, role: Role) {
    const joins: Array<{ actor: Actor | undefined; tournamentId: string }> = [];
    gateway = await startTestGateway({
      env,
      auth: {
        getSession: ({ sessionId }) => ({
          user: { ...userMessage('ann@example.com', 'Ann'), role, isEmailVerified: true },
          session: { id: sessionId },
        }),
        seedBenchmarkUsers: ({ count }) => ({ users: seeded.slice(0, count) }),
      },
      game: {
        joinTournament: ({ actor, tournamentId }) => {
          joins.push({ actor, tournamentId });
          return {};
        },
      },
    });
    const login = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ email: 'ann@example.com', password: validPassword }),
    });
    const cookie = cookieFrom(login);
    const seed = (body: unknown) =>
      fetch(gateway.url('/api/benchmark/players'), {
        method: 'POST',
        headers: { ...jsonHeaders, cookie },
        body: JSON.stringify(body),
      });
    return { joins, seed };
  }

  it('seeds players for an admin and joins each one to the tournament as itself', async () => {
    const { joins, seed } = await start({ BENCHMARK_SEED: 'on' }, Role.ADMIN);

    const response = await seed({ count: 2, label: 'x', tournamentId: 't-1' });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ cookieName: 'underdog_session', players: seeded });
    expect(
      joins.map(({ actor, tournamentId }) => [actor?.userId, actor?.deviceId, tournamentId]),
    ).toEqual([
      ['u-1', 'bench-x-0', 't-1'],
      ['u-2', 'bench-x-1', 't-1'],
    ]);
    expect(joins[0]?.actor).toMatchObject({ isEmailVerified: true, username: 'b_x_0' });
  });

  it('refuses players who are not admins', async () => {
    const { joins, seed } = await start({ BENCHMARK_SEED: 'on' }, Role.USER);

    const response = await seed({ count: 1, label: 'x', tournamentId: 't-1' });

    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'ADMIN_ONLY' });
    expect(joins).toEqual([]);
  });

  it('does not exist unless BENCHMARK_SEED=on', async () => {
    const { seed } = await start({}, Role.ADMIN);

    expect((await seed({ count: 1, label: 'x' })).status).toBe(404);
  });
});
