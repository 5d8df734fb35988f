import { startEdgeGateway, type EdgeGateway } from './edge-support';

describe('idle keep-alive connections', () => {
  let gateway: EdgeGateway;
  beforeAll(async () => {
    gateway = await startEdgeGateway();
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('are kept 30 s and say so, so a client reusing one does not race the server closing it', async () => {
    // undici (fetch) and browsers reuse a connection until the hinted timeout less a margin; with
    // Node's default of 5 s a client whose timers lag by a second sends into a closing socket.
    const response = await fetch(gateway.url('/healthz'), {
      headers: { 'x-device-id': 'device-keep-alive' },
    });
    await response.arrayBuffer();
    expect(response.headers.get('keep-alive')).toBe('timeout=30');
  });
});
