import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { jsonHeaders, startTestGateway, type TestGateway } from './support';

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

const aliases = (count: number, field: string) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

/** graphql-js's message (which spells it "more that" in 16.x). */
const tokenLimit = /^Syntax Error: Document contains more tha[nt] 2000 tokens\. Parsing aborted\.$/;

const tournamentFields = 'id title status startAt prize participantCount roundTimeSeconds';

/** 10 × 10 × 10 fragment spreads of the tournament's fields: few tokens, a huge result. */
const fragmentBomb = `{ tournaments { ...A } }
  fragment A on Tournament { ${Array(10).fill('...B').join(' ')} }
  fragment B on Tournament { ${Array(10).fill('...C').join(' ')} }
  fragment C on Tournament { ${Array(10).fill('...D').join(' ')} }
  fragment D on Tournament { ${tournamentFields} }`;

/** How long `/healthz` takes to answer, in ms; printed next to what was sent meanwhile. */
async function healthzWhile(gateway: TestGateway, what: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(gateway.url('/healthz'));
  const ms = performance.now() - started;
  expect(response.status).toBe(200);
  console.log(`/healthz answered in ${ms.toFixed(1)} ms while ${what} was refused`);
  return ms;
}

describe('GraphQL cost limits, enforced before execution', () => {
  let gateway: TestGateway;
  let listed = 0;
  const start = (env: Record<string, string> = {}) =>
    startTestGateway({
      env,
      tournament: {
        listTournaments: () => {
          listed += 1;
          return { tournaments: [] };
        },
      },
    });
  beforeEach(() => {
    listed = 0;
  });

  describe('over HTTP', () => {
    beforeAll(async () => {
      gateway = await start();
    });
    afterAll(() => gateway.stop());

    const post = async (query: string) => {
      const response = await fetch(gateway.url('/graphql'), {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({ query }),
      });
      return { status: response.status, body: (await response.json()) as GraphQLAnswer };
    };

    it('refuses the 5,000-alias query while parsing (token budget), /healthz unaffected', async () => {
      const [refusal] = await Promise.all([
        post(aliases(5000, 'serverTime')),
        healthzWhile(gateway, 'a 5,000-alias query over HTTP'),
      ]);
      expect(refusal.status).toBe(400);
      expect(refusal.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(tokenLimit) as unknown,
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      });
    });

    it('refuses more than 15 aliases', async () => {
      const refusal = await post(aliases(16, 'tournaments { id }'));
      expect(refusal.status).toBe(400);
      expect(refusal.body.errors).toEqual([
        expect.objectContaining({
          message: 'Syntax Error: Aliases limit of 15 exceeded, found 16.',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      ]);
      expect(listed).toBe(0);
    });

    it('refuses selections nested deeper than 10', async () => {
      const refusal = await post(
        `{ ${'... on Query { '.repeat(12)} serverTime ${'} '.repeat(12)} }`,
      );
      expect(refusal.status).toBe(400);
      expect(refusal.body.errors?.[0]).toMatchObject({
        message: 'Syntax Error: Query depth limit of 10 exceeded, found 13.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    });

    it('refuses a fragment bomb by its cost, without calling the service', async () => {
      const refusal = await post(fragmentBomb);
      expect(refusal.status).toBe(400);
      expect(refusal.body.errors?.[0]?.message).toMatch(
        /^Syntax Error: Query Cost limit of 5000 exceeded, found \d+/,
      );
      expect(refusal.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(listed).toBe(0);
    });

    it("answers an ordinary query of the web app's size", async () => {
      const answer = await post(
        `{ me { id email displayName } serverTime tournaments { ${tournamentFields} } }`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(listed).toBe(1);
    });
  });

  describe('over graphql-ws', () => {
    const sockets: WebSocket[] = [];
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.terminate();
    });

    /** A graphql-transport-ws connection past its ack; `messages` collects what the server sent. */
    async function connect(target: TestGateway) {
      const socket = new WebSocket(
        target.url('/graphql').replace(/^http/, 'ws'),
        'graphql-transport-ws',
      );
      sockets.push(socket);
      const messages: Array<{ type: string; id?: string; payload?: unknown }> = [];
      const waiters: Array<() => void> = [];
      socket.on('message', (data: Buffer) => {
        messages.push(JSON.parse(data.toString()) as (typeof messages)[number]);
        for (const wake of waiters.splice(0)) wake();
      });
      const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const next = async (type: string) => {
        for (;;) {
          const found = messages.find((message) => message.type === type);
          if (found) return found;
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
      };
      socket.send(JSON.stringify({ type: 'connection_init' }));
      await next('connection_ack');
      return { socket, next, closed };
    }

    const subscribe = (socket: WebSocket, query: string) =>
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));

    describe('with frames allowed up to 1 MiB, so the operation reaches GraphQL', () => {
      beforeAll(async () => {
        gateway = await start({ WEBSOCKET_MAX_PAYLOAD_BYTES: String(1024 * 1024) });
      });
      afterAll(() => gateway.stop());

      it('refuses a 20,000-alias frame while parsing, /healthz unaffected', async () => {
        const { socket, next } = await connect(gateway);
        const query = aliases(20_000, 'serverTime');
        const [error] = await Promise.all([
          (async () => {
            subscribe(socket, query);
            return next('error');
          })(),
          healthzWhile(gateway, `a 20,000-alias graphql-ws frame (${query.length} bytes)`),
        ]);
        expect(error.payload).toEqual([
          expect.objectContaining({
            message: expect.stringMatching(tokenLimit) as unknown,
            extensions: { code: 'GRAPHQL_PARSE_FAILED' },
          }),
        ]);
        expect(socket.readyState).toBe(WebSocket.OPEN);
      });

      it('refuses too many aliases and a fragment bomb like HTTP does', async () => {
        const { socket, next } = await connect(gateway);
        subscribe(socket, aliases(16, 'tournaments { id }'));
        expect((await next('error')).payload).toEqual([
          expect.objectContaining({
            message: 'Syntax Error: Aliases limit of 15 exceeded, found 16.',
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }),
        ]);
        const second = await connect(gateway);
        subscribe(second.socket, fragmentBomb);
        const bomb = (await second.next('error')).payload as GraphQLAnswer['errors'];
        expect(bomb?.[0]?.message).toMatch(/^Syntax Error: Query Cost limit of 5000 exceeded/);
        expect(bomb?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(listed).toBe(0);
      });
    });

    describe('with the default 64 KiB frame limit', () => {
      beforeAll(async () => {
        gateway = await start();
      });
      afterAll(() => gateway.stop());

      it('closes the socket on a 1 MiB frame (1009, message too big)', async () => {
        const { socket, closed } = await connect(gateway);
        socket.send(Buffer.alloc(1024 * 1024, 0x20));
        const [code] = await Promise.all([closed, healthzWhile(gateway, 'a 1 MiB frame')]);
        expect(code).toBe(1009);
        expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
      });

      it('closes the socket on the 20,000-alias frame before reading it', async () => {
        const { socket, closed } = await connect(gateway);
        subscribe(socket, aliases(20_000, 'serverTime'));
        expect(await closed).toBe(1009);
      });

      it('still answers operations within the limits', async () => {
        const { socket, next } = await connect(gateway);
        subscribe(socket, '{ serverTime }');
        const answer = (await next('next')).payload as GraphQLAnswer;
        expect(answer.data?.serverTime).toEqual(expect.any(String));
      });
    });
  });
});
