import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { createConnectTransport } from '@connectrpc/connect-node';
import express from 'express';
import { createLogger } from '@underdog/kit';
import { TournamentService, timestampFromDate } from '@underdog/proto';
import {
  Code,
  ConnectError,
  SERVICE_CREDENTIAL_REFUSED,
  SERVICE_TOKEN_HEADER,
  createClient,
  createHttpTransport,
  createRpcRouter,
  errorReason,
  signServiceToken,
  verifyServiceToken,
  type Interceptor,
} from '../src';

const secret = 'a-service-token-secret-of-32-characters';
const procedure = '/underdog.tournament.v1.TournamentService/GetServerTime';
const now = new Date('2030-01-01T12:00:00.000Z');
const at = (offsetSeconds: number) => new Date(now.getTime() + offsetSeconds * 1000);

describe('service tokens', () => {
  const token = signServiceToken({ secret, caller: 'gateway', procedure, now });

  it('are valid for the procedure they were made for, for a minute, naming the caller', () => {
    expect(verifyServiceToken(token, { secret, procedure, now })).toEqual({
      ok: true,
      caller: 'gateway',
    });
    expect(verifyServiceToken(token, { secret, procedure, now: at(60) }).ok).toBe(true);
    expect(verifyServiceToken(token, { secret, procedure, now: at(61) })).toEqual({
      ok: false,
      reason: 'expired',
      caller: 'gateway',
    });
  });

  it('are refused for another procedure, under another key, or altered', () => {
    const setRole = '/underdog.auth.v1.AuthService/SetRole';
    expect(verifyServiceToken(token, { secret, procedure: setRole, now })).toMatchObject({
      ok: false,
      reason: 'signature',
    });
    expect(verifyServiceToken(token, { secret: `${secret}-other`, procedure, now })).toMatchObject({
      ok: false,
      reason: 'signature',
    });
    // The caller or the expiry changed, the signature kept.
    const [version, , expiry, signed] = token.split('.');
    for (const altered of [
      `${version}.auth.${expiry}.${signed}`,
      `${version}.gateway.${Number(expiry) + 3600}.${signed}`,
    ]) {
      expect(verifyServiceToken(altered, { secret, procedure, now })).toMatchObject({
        ok: false,
        reason: 'signature',
      });
    }
  });

  it('are refused when missing, malformed or made to last too long', () => {
    for (const missing of [undefined, null, '']) {
      expect(verifyServiceToken(missing, { secret, procedure, now })).toEqual({
        ok: false,
        reason: 'missing',
      });
    }
    for (const malformed of ['x', 'v1.gateway.1', 'v2.gateway.1.abc', `${token}.extra`, 'Bearer']) {
      expect(verifyServiceToken(malformed, { secret, procedure, now })).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    const lasting = signServiceToken({
      secret,
      caller: 'gateway',
      procedure,
      now,
      ttlSeconds: 3600,
    });
    expect(verifyServiceToken(lasting, { secret, procedure, now })).toMatchObject({
      ok: false,
      reason: 'too-long',
    });
  });
});

describe('a service served over HTTP', () => {
  let server: Server;
  let baseUrl: string;
  const logged: Array<Record<string, unknown>> = [];
  let handled = 0;

  beforeAll(async () => {
    const logger = createLogger({
      service: 'credentials-test',
      level: 'warn',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    });
    const app = express();
    app.use(
      createRpcRouter(
        (router) =>
          router.service(TournamentService, {
            getServerTime: () => {
              handled += 1;
              return { serverTime: timestampFromDate(new Date()) };
            },
          }),
        { credentials: { secret, logger } },
      ),
    );
    app.get('/healthz', (_request, response) => void response.json({ ok: true }));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('expected an address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    logged.length = 0;
    handled = 0;
  });

  /** A plain Connect client (no credential of its own): its calls carry what `header` sets. */
  const unsignedClient = (header: (headers: Headers) => void = () => undefined) => {
    const set: Interceptor = (next) => (request) => {
      header(request.header);
      return next(request);
    };
    return createClient(
      TournamentService,
      createConnectTransport({ httpVersion: '1.1', baseUrl, interceptors: [set] }),
    );
  };
  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => 'accepted',
      (error: unknown) =>
        error instanceof ConnectError
          ? { code: error.code, reason: errorReason(error) }
          : String(error),
    );
  const refused = { code: Code.Unauthenticated, reason: SERVICE_CREDENTIAL_REFUSED };

  it('answers a caller holding the key', async () => {
    const client = createClient(
      TournamentService,
      createHttpTransport(baseUrl, { name: 'gateway', secret }),
    );
    expect(await failureOf(client.getServerTime({}))).toBe('accepted');
    expect(handled).toBe(1);
    expect(logged).toEqual([]);
  });

  it('refuses a call without a credential before the handler runs, and logs it', async () => {
    expect(await failureOf(unsignedClient().getServerTime({}))).toEqual(refused);
    expect(handled).toBe(0);
    expect(logged).toEqual([
      expect.objectContaining({
        msg: 'internal call refused: no valid service credential',
        procedure,
        reason: 'missing',
      }),
    ]);
  });

  it('refuses a token signed with another key, an expired one, and one made for another call', async () => {
    const forged = signServiceToken({
      secret: 'not-the-deployment-key-but-32-characters',
      caller: 'gateway',
      procedure,
      now: new Date(),
    });
    const expired = signServiceToken({
      secret,
      caller: 'gateway',
      procedure,
      now: new Date(Date.now() - 2 * 60_000),
    });
    const elsewhere = signServiceToken({
      secret,
      caller: 'gateway',
      procedure: '/underdog.tournament.v1.TournamentService/ListTournaments',
      now: new Date(),
    });
    for (const token of [forged, expired, elsewhere]) {
      const client = unsignedClient((headers) => headers.set(SERVICE_TOKEN_HEADER, token));
      expect(await failureOf(client.getServerTime({}))).toEqual(refused);
    }
    expect(handled).toBe(0);
    expect(logged.map((line) => [line.reason, line.claimedCaller])).toEqual([
      ['signature', 'gateway'],
      ['expired', 'gateway'],
      ['signature', 'gateway'],
    ]);
    // The token itself is never logged.
    expect(JSON.stringify(logged)).not.toContain(forged.split('.')[3]);
  });

  it('leaves the other paths open (health and readiness probes)', async () => {
    const response = await fetch(`${baseUrl}/healthz`);
    expect(response.status).toBe(200);
  });
});
