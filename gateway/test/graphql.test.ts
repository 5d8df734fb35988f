import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
} from './support';

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

describe('GraphQL at /graphql (stub auth service)', () => {
  let gateway: TestGateway;
  beforeEach(async () => {
    gateway = await startTestGateway();
  });
  afterEach(() => gateway.stop());

  const graphql = async (query: string, variables = {}, headers = {}) => {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { ...jsonHeaders, ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { response, body: (await response.json()) as GraphQLAnswer };
  };
  const loginMutation =
    'mutation ($password: String!) { login(email: "ann@example.com", password: $password) { id email role } }';

  it('answers me with null for a visitor, and the user once logged in', async () => {
    expect((await graphql('{ me { id } }')).body).toEqual({ data: { me: null } });

    const { response, body } = await graphql(loginMutation, { password: validPassword });
    expect(body.data).toEqual({
      login: { id: 'user-ann@example.com', email: 'ann@example.com', role: 'user' },
    });
    // The same cookie REST sets.
    expect(response.headers.get('set-cookie')).toBe(
      'underdog_session=session-1; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax',
    );
    const me = await graphql(
      '{ me { email displayName gamesPlayed firstWinDate } }',
      {},
      {
        cookie: cookieFrom(response),
      },
    );
    expect(me.body.data).toEqual({
      me: { email: 'ann@example.com', displayName: 'Ann', gamesPlayed: 3, firstWinDate: null },
    });
  });

  it("reports a failure with the AppError's code, HTTP status and the request's id", async () => {
    const { response, body } = await graphql(
      loginMutation,
      { password: 'wrong-guess1' },
      { 'X-Request-Id': 'graphql-failure-1' },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('graphql-failure-1');
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'Invalid username or password',
        extensions: { code: 'INVALID_CREDENTIALS', requestId: 'graphql-failure-1' },
      }),
    ]);
  });

  it('shares the login throttle with REST', async () => {
    const strict = await startTestGateway({ env: { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '1' } });
    try {
      await fetch(strict.url('/api/login'), {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ email: 'ann@example.com', password: 'wrong-guess1' }),
      });
      const response = await fetch(strict.url('/graphql'), {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ query: loginMutation, variables: { password: validPassword } }),
      });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await response.json()) as GraphQLAnswer).errors?.[0]).toMatchObject({
        message: 'Too many attempts. Please try again later.',
        extensions: { code: 'RATE_LIMITED' },
      });
    } finally {
      await strict.stop();
    }
  });

  it('clears the cookie on logout', async () => {
    const cookie = cookieFrom((await graphql(loginMutation, { password: validPassword })).response);
    const { response, body } = await graphql('mutation { logout }', {}, { cookie });
    expect(body.data).toEqual({ logout: true });
    expect(response.headers.get('set-cookie')).toMatch(/^underdog_session=; Max-Age=0;/);
    expect(gateway.calls.logout).toEqual(['session-1']);
  });

  it('validates verifyEmail arguments like REST does', async () => {
    const { response, body } = await graphql(
      'mutation { verifyEmail(email: "ann@example.com") { id } }',
    );
    expect(response.status).toBe(400);
    expect(body.errors?.[0]).toMatchObject({
      message: 'code or token is required',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('answers serverTime', async () => {
    const { body } = await graphql('{ serverTime }');
    expect(body.data?.serverTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it("refuses a GET without a preflight-forcing header (Apollo's CSRF prevention)", async () => {
    const response = await fetch(gateway.url('/graphql?query=%7BserverTime%7D'), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as GraphQLAnswer).errors?.[0]?.message).toMatch(
      /Cross-Site Request Forgery/,
    );
  });

  it('answers a GET query that carries apollo-require-preflight', async () => {
    const response = await fetch(gateway.url('/graphql?query=%7BserverTime%7D'), {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as GraphQLAnswer).data?.serverTime).toBeDefined();
  });

  describe('over graphql-ws', () => {
    const clients: Client[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.dispose();
    });

    const wsUrl = () => gateway.url('/graphql').replace(/^http/, 'ws');
    const connect = (headers: Record<string, string> = {}) => {
      const client = createClient({
        url: wsUrl(),
        webSocketImpl: class extends WebSocket {
          constructor(address: string, protocols?: string | string[]) {
            super(address, protocols, { headers });
          }
        },
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(client);
      return client;
    };
    const execute = (client: Client, query: string) =>
      new Promise<GraphQLAnswer>((resolve, reject) => {
        let answer: GraphQLAnswer = {};
        client.subscribe(
          { query },
          {
            next: (value) => (answer = value as GraphQLAnswer),
            error: (error: unknown) =>
              Array.isArray(error)
                ? resolve({ errors: error as GraphQLAnswer['errors'] })
                : reject(error as Error),
            complete: () => resolve(answer),
          },
        );
      });

    it('answers queries with the session of the upgrade request', async () => {
      const login = await fetch(gateway.url('/api/login'), {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ email: 'ann@example.com', password: validPassword }),
      });
      const answer = await execute(
        connect({ cookie: cookieFrom(login) }),
        '{ me { email } serverTime }',
      );
      expect(answer.data).toMatchObject({ me: { email: 'ann@example.com' } });
    });

    it('refuses mutations, which must set cookies over HTTP', async () => {
      const answer = await execute(connect(), 'mutation { logout }');
      expect(answer.errors?.[0]).toMatchObject({ message: 'Mutations must be sent over HTTP' });
    });

    it("refuses an upgrade from another site's page", async () => {
      const status = await new Promise<number | undefined>((resolve) => {
        const socket = new WebSocket(wsUrl(), 'graphql-transport-ws', {
          headers: { origin: 'https://evil.example' },
        });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
        socket.on('open', () => resolve(101));
        socket.on('error', () => resolve(undefined));
      });
      expect(status).toBe(403);
    });

    it('refuses upgrades on other paths', async () => {
      const status = await new Promise<number | undefined>((resolve) => {
        const socket = new WebSocket(gateway.url('/nowhere').replace(/^http/, 'ws'));
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
        socket.on('open', () => resolve(101));
        socket.on('error', () => resolve(undefined));
      });
      expect(status).toBe(404);
    });
  });
});
