// Issue 37, point 6 (acceptance 5): services check their caller. Each service as it runs in
// distributed mode — its needs connected to the harness's real Kafka, Redis and MongoDB-wire
// servers, its HTTP surface built by the same `serviceHttpApp` as `runServiceProcess` — is called
// over HTTP on one admin operation without a service credential, with a forged one and with an
// expired one (each refused, Unauthenticated, logged, the handler never reached), and with the
// credential the gateway holds (answered by the handler).
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { testInfra } from '@underdog/harness';
import {
  ComponentGroup,
  createLogger,
  createMetricsRegistry,
  httpServerComponent,
  type Component,
  type HttpServerComponent,
  type Logger,
} from '@underdog/kit';
import {
  createDistributedInfrastructure,
  serviceHttpApp,
  type ServiceDefinition,
} from '@underdog/platform';
import {
  AdsService,
  AuthService,
  GameService,
  NotificationService,
  Role,
  TournamentService,
} from '@underdog/proto';
import {
  Code,
  ConnectError,
  SERVICE_CREDENTIAL_REFUSED,
  SERVICE_TOKEN_HEADER,
  createClient,
  createHttpTransport,
  errorReason,
  signServiceToken,
  type Interceptor,
  type Transport,
} from '@underdog/rpc';
import { actors, testContext } from '@underdog/test-support';
import { adsService } from '../../services/ads/src';
import { authService } from '../../services/auth/src';
import { gameEngineService } from '../../services/game-engine/src';
import { notificationService } from '../../services/notification/src';
import { tournamentService } from '../../services/tournament/src';

/** The deployment's SERVICE_TOKEN_SECRET in this test. */
const secret = `service-credentials-${randomUUID()}`;
const run = randomUUID().replace(/-/g, '').slice(0, 10);
const adminEmail = `svc-credentials-${run}@example.com`;

interface Case {
  key: string;
  definition: ServiceDefinition<unknown>;
  env: Record<string, string>;
  /** Components of the module to start besides the infrastructure: never consumers (shared topics). */
  start: readonly string[];
  /** The admin operation; with the credential, what its handler answers. */
  call: (transport: Transport) => Promise<unknown>;
  answered: (answer: unknown) => void;
}

const cases: Case[] = [
  {
    key: 'auth SetRole',
    definition: authService as ServiceDefinition<unknown>,
    env: { ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: 'Admin-password-1' },
    start: ['admin-bootstrap'],
    call: (transport) =>
      createClient(AuthService, transport).setRole({ email: adminEmail, role: Role.ADMIN }),
    answered: (answer) =>
      expect(answer).toMatchObject({ user: { email: adminEmail, role: Role.ADMIN } }),
  },
  {
    key: 'tournament ListAdminActions',
    definition: tournamentService as ServiceDefinition<unknown>,
    env: {},
    start: [],
    call: (transport) =>
      createClient(TournamentService, transport).listAdminActions({ actor: actors.admin() }),
    answered: (answer) => expect(answer).toMatchObject({ actions: [] }),
  },
  {
    key: 'game-engine ListTournamentHistory',
    definition: gameEngineService as ServiceDefinition<unknown>,
    env: {},
    start: [],
    call: (transport) =>
      createClient(GameService, transport).listTournamentHistory({ actor: actors.admin() }),
    answered: (answer) => expect(answer).toMatchObject({ items: [] }),
  },
  {
    key: 'ads DeleteAdvertisement',
    definition: adsService as ServiceDefinition<unknown>,
    env: {},
    start: [],
    // An ad that does not exist: the handler answers NotFound (nothing is published).
    call: (transport) =>
      createClient(AdsService, transport)
        .deleteAdvertisement({ actor: actors.admin(), id: randomUUID() })
        .catch((error: unknown) => error),
    answered: (answer) =>
      expect(answer).toMatchObject({ code: Code.NotFound, rawMessage: 'Advertisement not found' }),
  },
  {
    key: 'notification ListMailbox',
    definition: notificationService as ServiceDefinition<unknown>,
    env: {},
    start: [],
    call: (transport) => createClient(NotificationService, transport).listMailbox({}),
    answered: (answer) => expect(answer).toMatchObject({ messages: [] }),
  },
];

/** The service's infrastructure and HTTP surface, assembled as `runServiceProcess` does. */
async function serve(service: Case, logger: Logger) {
  const infra = testInfra();
  const { definition } = service;
  const infrastructure = await createDistributedInfrastructure(
    {
      service: definition.name,
      instanceId: `credentials-${run}`,
      needs: definition.needs,
      kafkaBrokers: infra.kafkaBrokers,
      redisUrl: infra.redisUrl,
      mongoUrl: infra.mongoUrl,
      mongoDb: `credentials_${definition.name.replace(/-/g, '_')}_${run}`,
    },
    logger,
  );
  const registry = createMetricsRegistry(`credentials-${definition.name}`);
  const components: Component[] = [];
  const group = new ComponentGroup(logger, components);
  const module = await definition.create(
    {
      ...testContext(infrastructure, { logger }),
      registry,
      readiness: () => group.readiness(),
      serviceTokenSecret: secret,
    },
    definition.config(service.env),
  );
  const app = serviceHttpApp(module, {
    logger,
    registry,
    readiness: () => group.readiness(),
    serviceTokenSecret: secret,
  });
  const http: HttpServerComponent = httpServerComponent(app, { port: 0, host: '127.0.0.1' });
  components.push(
    ...infrastructure.components,
    ...module.components.filter((component) => service.start.includes(component.name)),
    http,
  );
  await group.start();
  return { url: `http://127.0.0.1:${http.port()}`, stop: () => group.stop() };
}

/**
 * A transport whose calls carry no credential but what `header` sets: the transport's own
 * credential is taken off every call (made with a key nobody else holds, it could not pass anyway).
 */
function unsigned(url: string, header: (headers: Headers) => void = () => undefined): Transport {
  const replace: Interceptor = (next) => (request) => {
    request.header.delete(SERVICE_TOKEN_HEADER);
    header(request.header);
    return next(request);
  };
  return createHttpTransport(
    url,
    { name: 'stranger', secret: `a-key-nobody-else-holds-${randomUUID()}` },
    { interceptors: [replace] },
  );
}

const outcome = (call: Promise<unknown>) =>
  call.then(
    (answer) =>
      answer instanceof ConnectError
        ? { code: answer.code, reason: errorReason(answer) }
        : 'answered by the handler',
    (error: unknown) =>
      error instanceof ConnectError
        ? { code: error.code, reason: errorReason(error) }
        : String(error),
  );
const refused = { code: Code.Unauthenticated, reason: SERVICE_CREDENTIAL_REFUSED };

describe.each(cases)('$key', (service) => {
  const logged: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    service: `credentials-${service.definition.name}`,
    level: 'warn',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  });
  let served: Awaited<ReturnType<typeof serve>>;
  const refusals = () =>
    logged
      .filter((line) => line.msg === 'internal call refused: no valid service credential')
      .map((line) => line.reason);

  beforeAll(async () => {
    served = await serve(service, logger);
  }, 60_000);
  afterAll(() => served?.stop());
  beforeEach(() => {
    logged.length = 0;
  });

  it('is refused without the service credential, and the refusal is logged', async () => {
    expect(await outcome(service.call(unsigned(served.url)))).toEqual(refused);
    expect(refusals()).toEqual(['missing']);
  });

  it('is refused with a forged or an expired credential', async () => {
    const procedureOf = async (): Promise<string> => {
      let path = '';
      const spy: Interceptor = (_next) => (request) => {
        path = `/${request.service.typeName}/${request.method.name}`;
        throw new ConnectError('not sent', Code.Canceled);
      };
      await service
        .call(createHttpTransport(served.url, { name: 'gateway', secret }, { interceptors: [spy] }))
        .catch(() => undefined);
      return path;
    };
    const procedure = await procedureOf();
    expect(procedure).toMatch(/^\/underdog\.[a-z]+\.v1\.\w+Service\/\w+$/);
    const forged = signServiceToken({
      secret: `not-${secret}`,
      caller: 'gateway',
      procedure,
      now: new Date(),
    });
    const expired = signServiceToken({
      secret,
      caller: 'gateway',
      procedure,
      now: new Date(Date.now() - 5 * 60_000),
    });
    for (const token of [forged, expired]) {
      const transport = unsigned(served.url, (headers) => headers.set(SERVICE_TOKEN_HEADER, token));
      expect(await outcome(service.call(transport))).toEqual(refused);
    }
    expect(refusals()).toEqual(['signature', 'expired']);
  });

  it('is answered with the credential the gateway holds', async () => {
    const signed = createHttpTransport(served.url, { name: 'gateway', secret });
    service.answered(await service.call(signed));
    expect(refusals()).toEqual([]);
  });

  it('keeps /healthz, /readyz and /metrics open to probes and the scraper', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await fetch(`${served.url}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });
});
