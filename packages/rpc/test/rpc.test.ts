import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import { createLogger } from '@underdog/kit';
import { TournamentService, timestampDate, timestampFromDate } from '@underdog/proto';
import {
  Code,
  ConnectError,
  createRpcRouter,
  createServiceClient,
  errorReason,
  rpcError,
  type RegisterRoutes,
  type RpcEndpoint,
} from '../src';

const secret = 'a-service-token-secret-of-32-characters';
const caller = { name: 'gateway', secret };
const silent = createLogger({ service: 'rpc-test', level: 'silent' });

interface Served {
  readonly endpoint: RpcEndpoint;
  close(): Promise<void>;
}

/** Distributed mode: the handlers behind express on a free loopback port. */
async function serveOverHttp(routes: RegisterRoutes): Promise<Served> {
  const app = express();
  app.use(createRpcRouter(routes, { credentials: { secret, logger: silent } }));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return {
    endpoint: { mode: 'http', baseUrl: `http://127.0.0.1:${address.port}`, caller },
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // The client keeps HTTP/1.1 connections alive; without this, close waits for them.
        server.closeAllConnections();
      }),
  };
}

/** Standalone mode: the same handlers, no network. */
function serveInProcess(routes: RegisterRoutes): Promise<Served> {
  return Promise.resolve({
    endpoint: { mode: 'in-process', routes },
    close: () => Promise.resolve(),
  });
}

function tournamentRoutes(clock: () => Date): RegisterRoutes {
  return (router) => {
    router.service(TournamentService, {
      getServerTime: () => ({ serverTime: timestampFromDate(clock()) }),
    });
  };
}

describe.each([
  ['HTTP through express', serveOverHttp],
  ['the in-process transport', serveInProcess],
])('TournamentService over %s', (_transport, serve) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function clientFor(routes: RegisterRoutes) {
    served = await serve(routes);
    return createServiceClient(TournamentService, served.endpoint);
  }

  it('returns the server time', async () => {
    const client = await clientFor(tournamentRoutes(() => new Date()));

    const before = Date.now();
    const { serverTime } = await client.getServerTime({});
    const after = Date.now();

    const time = serverTime && timestampDate(serverTime).getTime();
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('delivers an error thrown by a handler with its code, message and reason', async () => {
    const client = await clientFor(
      tournamentRoutes(() => {
        throw rpcError(Code.FailedPrecondition, 'clock not synchronised', {
          reason: 'CLOCK_UNSYNCHRONISED',
        });
      }),
    );

    const error: unknown = await client.getServerTime({}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConnectError);
    expect(error).toMatchObject({
      code: Code.FailedPrecondition,
      rawMessage: 'clock not synchronised',
    });
    expect(errorReason(error)).toBe('CLOCK_UNSYNCHRONISED');
  });

  it('delivers a plain ConnectError with its code and no reason', async () => {
    const client = await clientFor(
      tournamentRoutes(() => {
        throw new ConnectError('bad clock', Code.InvalidArgument);
      }),
    );

    const error: unknown = await client.getServerTime({}).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: Code.InvalidArgument, rawMessage: 'bad clock' });
    expect(errorReason(error)).toBeUndefined();
  });

  it("reports a live store outage (the service's Redis failing over) as Unavailable, retryable", async () => {
    const client = await clientFor(
      tournamentRoutes(() => {
        throw Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
          name: 'MaxRetriesPerRequestError',
        });
      }),
    );

    const error: unknown = await client.getServerTime({}).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: Code.Unavailable });
  });

  it('reports an unexpected handler failure as Internal, without its message', async () => {
    const client = await clientFor(
      tournamentRoutes(() => {
        throw new Error('database password is hunter2');
      }),
    );

    const error: unknown = await client.getServerTime({}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConnectError);
    expect(error).toMatchObject({ code: Code.Internal, rawMessage: 'internal error' });
  });
});

describe('AppError across the RPC boundary', () => {
  it('reaches an in-process caller as the same AppError kind, reason and message', async () => {
    const { AppError } = await import('@underdog/kit');
    const { appErrorFromRpc, createInProcessTransport, createClient } = await import('../src');
    const { TournamentService } = await import('@underdog/proto');
    const client = createClient(
      TournamentService,
      createInProcessTransport((router) =>
        router.service(TournamentService, {
          getServerTime: () => {
            throw new AppError('CONFLICT', 'Already registered', { reason: 'EMAIL_TAKEN' });
          },
        }),
      ),
    );
    const error = await client.getServerTime({}).catch((caught: unknown) => caught);
    const appError = appErrorFromRpc(error);
    expect(appError).toBeInstanceOf(AppError);
    expect(appError.code).toBe('CONFLICT');
    expect(appError.reason).toBe('EMAIL_TAKEN');
    expect(appError.message).toBe('Already registered');
    expect(appError.status).toBe(409);
  });
});

describe('a transport failure across the RPC boundary', () => {
  it.each([
    ['hangs up (socket hang up)', (socket: Socket) => socket.destroy()],
    ['resets the connection (ECONNRESET)', (socket: Socket) => socket.resetAndDestroy()],
  ])(
    'reaches the caller as UNAVAILABLE (retryable), not CONFLICT or INTERNAL, when the server %s',
    async (_name, cut) => {
      const { appErrorFromRpc } = await import('../src');
      const server = createServer((request) => cut(request.socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('expected an address');
      try {
        const client = createServiceClient(TournamentService, {
          mode: 'http',
          baseUrl: `http://127.0.0.1:${address.port}`,
          caller,
        });
        const error = await client.getServerTime({}).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConnectError);
        const appError = appErrorFromRpc(error);
        expect([appError.code, appError.status]).toEqual(['UNAVAILABLE', 503]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});
