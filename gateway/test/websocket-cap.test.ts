import WebSocket from 'ws';
import { gatewaySettings } from '../src';
import { rawExchange, startEdgeGateway, upgradeRequest, type EdgeGateway } from './edge-support';

const cap = 3;

function open(
  gateway: EdgeGateway,
  path: '/ws' | '/graphql',
  headers: Record<string, string> = {},
) {
  const socket = new WebSocket(gateway.url(path).replace('http', 'ws'), 'graphql-transport-ws', {
    headers,
  });
  return new Promise<WebSocket>((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`refused with ${res.statusCode}`)),
    );
    socket.once('error', reject);
  });
}

async function closeAll(sockets: WebSocket[]) {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          socket.once('close', () => resolve());
          socket.close();
        }),
    ),
  );
}

describe('the per-address WebSocket cap', () => {
  let gateway: EdgeGateway;
  const opened: WebSocket[] = [];
  afterEach(async () => {
    await closeAll(opened.splice(0));
    await gateway.stop();
  });
  const settings = (trustProxy: number) => {
    const defaults = gatewaySettings({}, 'test');
    return {
      trustProxy,
      webSocket: { ...defaults.webSocket, maxConnectionsPerAddress: cap },
    };
  };

  it('refuses the upgrade past the cap with 429 on both endpoints, and takes one again once a socket closes', async () => {
    gateway = await startEdgeGateway(settings(0));
    opened.push(
      await open(gateway, '/ws'),
      await open(gateway, '/graphql'),
      await open(gateway, '/ws'),
    );
    for (const path of ['/ws', '/graphql']) {
      const refused = await rawExchange(gateway.port, upgradeRequest(path));
      expect(refused).toMatchObject({ status: 429, closed: true });
    }
    await expect(open(gateway, '/graphql')).rejects.toThrow('refused with 429');
    await closeAll(opened.splice(0, 1));
    opened.push(await open(gateway, '/graphql'));
    expect(
      gateway.lines.filter(
        (line) => line.msg === 'websocket refused: too many connections from one address',
      ),
    ).not.toHaveLength(0);
  });

  it('counts the client address behind a trusted proxy, as the rate limits do', async () => {
    gateway = await startEdgeGateway(settings(1));
    const from = (address: string) => ({ 'x-forwarded-for': `${address}` });
    for (let i = 0; i < cap; i += 1) opened.push(await open(gateway, '/ws', from('203.0.113.7')));
    await expect(open(gateway, '/ws', from('203.0.113.7'))).rejects.toThrow('refused with 429');
    // Another client behind the same proxy still gets in; a spoofed leftmost entry changes nothing.
    opened.push(await open(gateway, '/ws', from('198.51.100.1')));
    await expect(
      open(gateway, '/ws', { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' }),
    ).rejects.toThrow('refused with 429');
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    gateway = await startEdgeGateway(settings(0));
    for (let i = 0; i < cap; i += 1) {
      opened.push(await open(gateway, '/ws', { 'x-forwarded-for': `203.0.113.${i}` }));
    }
    await expect(open(gateway, '/ws', { 'x-forwarded-for': '198.51.100.1' })).rejects.toThrow(
      'refused with 429',
    );
  });

  it('counts an IPv6 client by its /64, so one host cannot rotate addresses past the cap', async () => {
    gateway = await startEdgeGateway(settings(1));
    for (let i = 1; i <= cap; i += 1) {
      opened.push(await open(gateway, '/ws', { 'x-forwarded-for': `2001:db8:1:2::${i}` }));
    }
    await expect(
      open(gateway, '/ws', { 'x-forwarded-for': '2001:db8:1:2:ffff::9' }),
    ).rejects.toThrow('refused with 429');
    opened.push(await open(gateway, '/ws', { 'x-forwarded-for': '2001:db8:1:3::1' }));
  });
});
