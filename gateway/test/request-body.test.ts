import { gatewaySettings } from '../src';
import { rawExchange, startEdgeGateway, type EdgeGateway } from './edge-support';

const limit = 100 * 1024;
const head = (path: string, framing: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  `X-Device-ID: device-1\r\n${framing}\r\n\r\n`;

describe('request bodies at the edge', () => {
  let gateway: EdgeGateway;
  beforeAll(async () => {
    gateway = await startEdgeGateway({
      http: { ...gatewaySettings({}, 'test').http, bodyTimeoutMs: 300 },
    });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it.each(['/api/login', '/graphql'])(
    'refuses a declared 20 MB body on %s with 413 before reading it, and closes',
    async (path) => {
      // Only the headers and 1 kB are sent: the answer must not wait for the other 20 MB.
      const exchange = await rawExchange(
        gateway.port,
        head(path, 'Content-Length: 20000000') + 'x'.repeat(1024),
        { waitMs: 2_000 },
      );
      expect(exchange).toMatchObject({ status: 413, closed: true });
      expect(exchange.response).toContain('"code":"PAYLOAD_TOO_LARGE"');
    },
  );

  it.each(['/api/login', '/graphql'])(
    'refuses a chunked body on %s as soon as it passes the limit, without its terminator',
    async (path) => {
      const chunk = 'x'.repeat(16 * 1024);
      const chunked = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(
        limit / chunk.length + 2,
      );
      const exchange = await rawExchange(
        gateway.port,
        head(path, 'Transfer-Encoding: chunked') + chunked,
        { waitMs: 2_000 },
      );
      expect(exchange).toMatchObject({ status: 413, closed: true });
    },
  );

  it.each(['/api/login', '/graphql'])(
    'answers a body that stalls on %s with 408 after the body timeout, and closes',
    async (path) => {
      const exchange = await rawExchange(gateway.port, head(path, 'Content-Length: 50') + '{"a"', {
        waitMs: 3_000,
      });
      // Closed by the server (the client would only give up at 3 s), with the body timeout's
      // answer: no wall-clock assertion needed to tell the timeout fired.
      expect(exchange).toMatchObject({ status: 408, closed: true });
      expect(exchange.response).toContain('"code":"REQUEST_TIMEOUT"');
    },
  );

  it('answers a chunked body that never ends with 408 too', async () => {
    const exchange = await rawExchange(
      gateway.port,
      head('/api/login', 'Transfer-Encoding: chunked') + '4\r\n{"a"\r\n',
      { waitMs: 3_000 },
    );
    expect(exchange).toMatchObject({ status: 408, closed: true });
  });

  it('still parses JSON bodies within the limit, chunked or not', async () => {
    const body = JSON.stringify({ email: 'ann@example.com', password: 'wrong-password1' });
    const sized = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-device-id': 'device-1' },
      body,
    });
    expect(sized.status).toBe(401);
    const chunked = await rawExchange(
      gateway.port,
      head('/api/login', 'Transfer-Encoding: chunked') +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      { waitMs: 2_000 },
    );
    expect(chunked.status).toBe(401);
    const graphql = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('answers malformed JSON with 400 BAD_REQUEST, as before', async () => {
    const response = await fetch(gateway.url('/api/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-device-id': 'device-1' },
      body: '{"email":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });
});
