import WebSocket from 'ws';
import { jsonHeaders, startTestGateway, type TestGateway } from './support';

interface GraphQLError {
  message: string;
  extensions?: { code?: string };
}

const introspection = '{ __schema { queryType { name } } }';
/** A misspelt field: graphql-js would add `Did you mean "me"?`. */
const typo = '{ mee { id } }';

async function overHttp(gateway: TestGateway, query: string) {
  const response = await fetch(gateway.url('/graphql'), {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: unknown; errors?: GraphQLError[] };
}

/** One operation over graphql-transport-ws: the `next` payload's errors or the `error` message's. */
async function overWebSocket(gateway: TestGateway, query: string) {
  const socket = new WebSocket(
    gateway.url('/graphql').replace(/^http/, 'ws'),
    'graphql-transport-ws',
  );
  try {
    return await new Promise<{ data?: unknown; errors?: GraphQLError[] }>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
      socket.on('message', (raw: Buffer) => {
        const message = JSON.parse(raw.toString()) as { type: string; payload?: unknown };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        } else if (message.type === 'next') {
          resolve(message.payload as { data?: unknown; errors?: GraphQLError[] });
        } else if (message.type === 'error') {
          resolve({ errors: message.payload as GraphQLError[] });
        }
      });
    });
  } finally {
    socket.terminate();
  }
}

const transports = [
  ['HTTP', overHttp],
  ['graphql-ws', overWebSocket],
] as const;

describe('the GraphQL schema in production (NODE_ENV=production)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ nodeEnv: 'production' });
  });
  afterAll(() => gateway.stop());

  it.each(transports)('refuses introspection over %s', async (_name, send) => {
    const answer = await send(gateway, introspection);
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0]?.message).toMatch(/introspection/i);
    expect(answer.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it.each(transports)('answers a misspelt field over %s without suggestions', async (_n, send) => {
    const answer = await send(gateway, typo);
    expect(answer.errors?.[0]?.message).toMatch(/^Cannot query field "mee" on type "Query"\./);
    expect(JSON.stringify(answer)).not.toMatch(/Did you mean/);
  });
});

describe('the GraphQL schema outside production', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ nodeEnv: 'development' });
  });
  afterAll(() => gateway.stop());

  it.each(transports)('answers introspection and suggests over %s', async (_name, send) => {
    expect((await send(gateway, introspection)).data).toEqual({
      __schema: { queryType: { name: 'Query' } },
    });
    expect((await send(gateway, typo)).errors?.[0]?.message).toMatch(/Did you mean "me"\?/);
  });
});
