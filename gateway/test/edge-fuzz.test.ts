import {
  assertSurvivesMalformedTraffic,
  fuzzSeed,
  h1Request,
  rawExchange,
  startEdgeGateway,
  upgradeRequest,
  type EdgeGateway,
} from './edge-support';

describe('the edge under malformed requests and upgrades', () => {
  let gateway: EdgeGateway;
  beforeAll(async () => {
    gateway = await startEdgeGateway();
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('answers the reported upgrade to //[ with 400, closes it, and keeps serving', async () => {
    const exchange = await rawExchange(gateway.port, h1Request);
    expect(exchange).toMatchObject({ status: 400, closed: true });
    expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
  });

  it.each(['//a:99999/ws', '//%zz/', '//[::1/graphql', 'http://a:port/ws'])(
    'answers an upgrade to the unparseable URL %s with 400 and closes it',
    async (target) => {
      const exchange = await rawExchange(gateway.port, upgradeRequest(target));
      expect(exchange).toMatchObject({ status: 400, closed: true });
      expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
    },
  );

  it('survives a client that resets the connection as its upgrade is refused', async () => {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await rawExchange(gateway.port, h1Request, {
        after: (socket) => socket.resetAndDestroy(),
      });
      await rawExchange(gateway.port, upgradeRequest('/nowhere'), {
        after: (socket) => socket.resetAndDestroy(),
      });
    }
    expect((await fetch(gateway.url('/healthz'))).status).toBe(200);
  });

  it('answers a request line it cannot parse with 400 and logs it as one structured line', async () => {
    const exchange = await rawExchange(
      gateway.port,
      'GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n',
    );
    expect(exchange).toMatchObject({ status: 400, closed: true });
    expect(gateway.lines.filter((line) => line.msg === 'malformed request')).toHaveLength(1);
  });

  it('survives a few hundred generated malformed requests and upgrades, /healthz answering after each', async () => {
    await assertSurvivesMalformedTraffic(gateway.port, { numRuns: 300, seed: fuzzSeed() });
    expect(gateway.lines.filter((line) => line.level >= 50)).toEqual([]);
  }, 60_000);
});
