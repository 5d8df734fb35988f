// Memory per idle-but-subscribed socket, `/ws` against graphql-ws (issue 25: graphql-ws ≤ 1.5×).
//
//   pnpm exec tsx load/driver/socket-memory.ts [--sockets 3000] [--protocol ws|graphql-ws]
//                                              [--snapshot]
//
// For each protocol a fresh gateway is started in a child process (the gateway as the tests
// build it, gateway/test/support.ts, with a stand-in game whose snapshot is a voting round),
// N sockets are opened from this process and subscribed as the clients do it (graphql-ws: the
// web app's connection_init parameters and its `GameEvents` document as Apollo prints it; /ws:
// `subscribe_tournament`), and the server's heap (after two full collections) and RSS are read
// before and after. With --snapshot the server writes a heap snapshot with the sockets open and
// the largest items by constructor are listed, which is where a socket's bytes go.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import WebSocket from 'ws';
import { appOperations } from './app-operations';

type Protocol = 'ws' | 'graphql-ws';

interface Memory {
  heapUsed: number;
  rss: number;
}

type ToServer = { type: 'measure' } | { type: 'snapshot'; file: string } | { type: 'stop' };
type FromServer =
  | { type: 'ready'; port: number }
  | ({ type: 'memory' } & Memory)
  | { type: 'snapshot'; file: string };

const tournamentId = 'memory-t-1';

async function serve(): Promise<void> {
  const { AppError } = await import('@underdog/kit');
  const { startTestGateway } = await import('../../gateway/test/support');
  const { liveGame } = await import('../../gateway/test/game-events');
  const gateway = await startTestGateway({
    env: { WEBSOCKET_MAX_CONNECTIONS_PER_IP: '0' },
    tournament: { listTournaments: () => ({ tournaments: [] }) },
    games: {
      liveGame: (_origin, id) => Promise.resolve(liveGame({ tournamentId: id })),
      vote: () => Promise.reject(new AppError('CONFLICT', 'Not in this run')),
    },
  });
  const send = (message: FromServer) => process.send?.(message);
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (message: ToServer) => {
    if (message.type === 'measure') {
      gc?.();
      gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      send({ type: 'memory', heapUsed, rss });
    } else if (message.type === 'snapshot') {
      gc?.();
      send({ type: 'snapshot', file: writeHeapSnapshot(message.file) });
    } else {
      void gateway.stop().finally(() => process.exit(0));
    }
  });
  send({ type: 'ready', port: Number(new URL(gateway.url('/')).port) });
}

function ask<T extends FromServer['type']>(
  child: ChildProcess,
  message: ToServer,
  type: T,
): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (answer: FromServer) => {
      if (answer.type !== type) return;
      child.off('message', onMessage);
      resolve(answer as Extract<FromServer, { type: T }>);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** Opens one socket and subscribes it; resolves once its snapshot has arrived. */
function openSubscribed(port: number, protocol: Protocol, address: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const path = protocol === 'ws' ? '/ws' : '/graphql';
    const socket = new WebSocket(
      `ws://127.0.0.1:${port}${path}`,
      protocol === 'ws' ? [] : ['graphql-transport-ws'],
      { localAddress: address, perMessageDeflate: false },
    );
    socket.on('error', reject);
    socket.on('open', () => {
      if (protocol === 'ws') {
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId }));
      } else {
        const deviceId = `memory-device-${Math.random().toString(36).slice(2)}`;
        socket.send(
          JSON.stringify({
            type: 'connection_init',
            payload: { 'X-Device-ID': deviceId, deviceId },
          }),
        );
      }
    });
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string };
      if (protocol === 'ws') {
        if (message.type === 'game_state_update') resolve(socket);
        return;
      }
      if (message.type === 'connection_ack') {
        const { gameEvents } = appOperations();
        socket.send(
          JSON.stringify({
            // A UUID, as graphql-ws's client (the web app's) names a subscription.
            id: randomUUID(),
            type: 'subscribe',
            payload: {
              query: gameEvents.query,
              operationName: gameEvents.operationName,
              variables: { tournamentId },
            },
          }),
        );
      } else if (message.type === 'next') {
        resolve(socket);
      }
    });
  });
}

interface Measured {
  protocol: Protocol;
  sockets: number;
  heapPerSocket: number;
  rssPerSocket: number;
  top?: string;
}

async function measure(protocol: Protocol, sockets: number, snapshot: boolean) {
  const child = fork(__filename, ['--serve'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (message: FromServer) => {
      if (message.type === 'ready') resolve(message.port);
    });
  });
  // A warm-up socket, so the first-socket costs (the document parsed, the caches) are outside.
  const warm = await openSubscribed(ready, protocol, '127.0.0.2');
  const before = await ask(child, { type: 'measure' }, 'memory');
  const beforeFile = join(tmpdir(), `socket-memory-${protocol}-${process.pid}-before.heapsnapshot`);
  const baseline = snapshot
    ? heapGroups((await ask(child, { type: 'snapshot', file: beforeFile }, 'snapshot')).file)
    : undefined;
  const open: WebSocket[] = [];
  const batch = 100;
  for (let i = 0; i < sockets; i += batch) {
    const count = Math.min(batch, sockets - i);
    const opened = await Promise.all(
      Array.from({ length: count }, (_, j) =>
        // Several loopback source addresses: one has too few ephemeral ports for big runs.
        openSubscribed(ready, protocol, `127.0.1.${((i + j) % 200) + 1}`),
      ),
    );
    open.push(...opened);
  }
  const after = await ask(child, { type: 'measure' }, 'memory');
  const result: Measured = {
    protocol,
    sockets,
    heapPerSocket: (after.heapUsed - before.heapUsed) / sockets,
    rssPerSocket: (after.rss - before.rss) / sockets,
  };
  if (baseline) {
    const file = join(tmpdir(), `socket-memory-${protocol}-${process.pid}.heapsnapshot`);
    const written = await ask(child, { type: 'snapshot', file }, 'snapshot');
    result.top = largestGrowth(baseline, heapGroups(written.file), sockets);
  }
  for (const socket of [...open, warm]) socket.terminate();
  child.send({ type: 'stop' } satisfies ToServer);
  await new Promise((resolve) => child.once('exit', resolve));
  return result;
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type HeapGroups = Map<string, { count: number; bytes: number }>;

/** A heap snapshot's objects grouped by type and constructor (self sizes); the file is removed. */
function heapGroups(file: string): HeapGroups {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
  rmSync(file, { force: true });
  const fields = heap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = heap.snapshot.meta.node_types[0];
  const groups: HeapGroups = new Map();
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + typeAt] as number] ?? '?';
    const rawName = heap.strings[heap.nodes[i + nameAt] as number] ?? '?';
    // Strings by their first characters (which text it is), everything else by constructor.
    const name = type === 'string' ? JSON.stringify(rawName.slice(0, 48)) : rawName.slice(0, 60);
    const key = `${type} ${name}`.trim();
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += heap.nodes[i + sizeAt] as number;
    groups.set(key, group);
  }
  return groups;
}

/** The groups that grew most with the sockets open: bytes and objects per socket. */
function largestGrowth(before: HeapGroups, after: HeapGroups, sockets: number, rows = 25): string {
  return [...after.entries()]
    .map(([key, { count, bytes }]) => {
      const was = before.get(key) ?? { count: 0, bytes: 0 };
      return { key, count: (count - was.count) / sockets, bytes: (bytes - was.bytes) / sockets };
    })
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, rows)
    .map(
      ({ key, count, bytes }) =>
        `  ${bytes.toFixed(0).padStart(7)} B ${count.toFixed(2).padStart(7)} objects  ${key}`,
    )
    .join('\n');
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? '') : undefined;
}

async function main(): Promise<void> {
  const sockets = Number(flag('sockets') ?? 3000);
  const only = flag('protocol');
  const protocols: Protocol[] =
    only === 'ws' || only === 'graphql-ws' ? [only] : ['ws', 'graphql-ws'];
  const snapshot = flag('snapshot') !== undefined;
  const results: Measured[] = [];
  for (const protocol of protocols) {
    const result = await measure(protocol, sockets, snapshot);
    results.push(result);
    console.log(
      `${protocol.padEnd(10)} ${sockets} sockets: heap ${(result.heapPerSocket / 1024).toFixed(1)} KB/socket, ` +
        `RSS ${(result.rssPerSocket / 1024).toFixed(1)} KB/socket`,
    );
    if (result.top) console.log(`heap growth per socket, largest first:\n${result.top}`);
  }
  const [ws, graphqlWs] = results;
  if (ws && graphqlWs && results.length === 2) {
    console.log(
      `graphql-ws / ws: heap ${(graphqlWs.heapPerSocket / ws.heapPerSocket).toFixed(2)}×, ` +
        `RSS ${(graphqlWs.rssPerSocket / ws.rssPerSocket).toFixed(2)}×`,
    );
  }
}

if (process.argv.includes('--serve')) {
  void serve();
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
