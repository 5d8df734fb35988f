import { TOTAL_ROUNDS } from '@underdog/rules';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createKafkaBus, createMemoryBus, type KafkaBus } from '@underdog/bus';
import { freePort, testInfra } from '@underdog/harness';
import { ComponentGroup, createLogger, createMetricsRegistry, type Logger } from '@underdog/kit';
import { createDistributedInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import {
  AdsService,
  AuthService,
  EventHeader,
  GameEventSchema,
  GameService,
  NotificationService,
  Role,
  TournamentLifecycleEventSchema,
  TournamentSchema,
  TournamentService,
  TournamentStatus,
  UserSchema,
  ActorSchema,
  create,
  encodeEvent,
  fromBinary,
  timestampFromDate,
  type GameEvent,
  type MessageInitShape,
} from '@underdog/proto';
import { createServiceClient } from '@underdog/rpc';
import { createMemoryStore } from '@underdog/store';
import { waitFor as waitForCondition } from '@underdog/test-support';
import { createGateway, createGatewayClients, gatewaySettings } from '../src';
import { Games } from '../src/games';
import type { RequestOrigin, RequestSession } from '../src/session';

/**
 * What the live-game end-to-end tests share: real service processes (game-engine, auth) on the
 * harness's Kafka, Redis and MongoDB-wire servers, the tournament's lifecycle published as the
 * tournament service would, the game's events recorded, and players voting through the
 * gateway's `Games`.
 */

export const silentLogger: Logger = createLogger({ service: 'live-game-e2e', level: 'silent' });
const root = join(__dirname, '..', '..');

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  port: number;
  url: string;
  exited: Promise<void>;
  /** Every line the process wrote to stdout (pino's JSON logs). */
  lines: string[];
}

/** The key internal calls are signed with (SERVICE_TOKEN_SECRET), given to every process started here. */
const serviceTokenSecret = `live-game-${randomUUID()}-${randomUUID()}`;

/** The test, calling a service process over HTTP as the gateway would. */
export const serviceCaller = { name: 'gateway', secret: serviceTokenSecret };

/**
 * Starts `services/<service>/src/main.ts` as its own Node process and waits for /readyz.
 * `node --require tsx/cjs`, not the tsx CLI: a signal (SIGKILL, SIGSTOP) must reach the service
 * itself, not a wrapper.
 */
export async function startService(
  service: 'game-engine' | 'auth',
  name: string,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--require', require.resolve('tsx/cjs'), join(root, `services/${service}/src/main.ts`)],
    {
      env: {
        PATH: process.env.PATH,
        SERVICE_TOKEN_SECRET: serviceTokenSecret,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Ready, or exited (no use waiting then).
  const came = await waitForCondition(
    async () =>
      child.exitCode !== null
        ? 'exited'
        : (await fetch(`${url}/readyz`)
            .then((response) => response.ok)
            .catch(() => false)) && 'ready',
    { message: `${name} ready`, timeoutMs: 90_000, intervalMs: 200 },
  );
  if (came !== 'ready') throw new Error(`${name} did not become ready: it exited`);
  return { name, child, port, url, exited, lines };
}

/** Stops what is still running (a frozen process is resumed first, so it can exit). */
export async function stopServices(processes: ServiceProcess[]): Promise<void> {
  for (const proc of processes) {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGCONT');
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }
}

/** The pino log lines of a process whose `msg` is `message`. */
export function logLines(proc: ServiceProcess, message: string): Array<Record<string, unknown>> {
  return proc.lines
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .filter((entry) => entry.msg === message);
}

/** The value of a counter (summed over its labels) in a process's /metrics. */
export async function metricValue(proc: ServiceProcess, name: string): Promise<number> {
  const text = await (await fetch(`${proc.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** `waitFor` of the test support, with a minute by default: these wait on whole processes. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 60_000,
): Promise<void> {
  await waitForCondition(condition, what, ms);
}

export interface Player {
  id: string;
  username: string;
}

/** A signed-in, verified player as the gateway resolves them from a session cookie. */
export function playerOrigin(player: Player, deviceId = `device-${player.id}`): RequestOrigin {
  const user = create(UserSchema, {
    id: player.id,
    username: player.username,
    email: `${player.username}@example.com`,
    displayName: player.username,
    role: Role.USER,
    isEmailVerified: true,
  });
  const signedIn = { sessionId: `session-${player.id}`, user };
  // What the auth service's session claims say of this player (GetSessionActor).
  const actor = create(ActorSchema, {
    userId: player.id,
    username: player.username,
    role: 'user',
    isEmailVerified: true,
  });
  const session = {
    current: async () => signedIn,
    require: async () => signedIn,
    actor: async () => actor,
    requireActor: async () => actor,
  } as unknown as RequestSession;
  return { ip: '127.0.0.1', deviceId, session };
}

type LifecycleKind = MessageInitShape<typeof TournamentLifecycleEventSchema>['kind'];

export interface LiveGameInfrastructure {
  infrastructure: Infrastructure;
  /** For partition ownership questions (`partitionOwners`). */
  admin: KafkaBus;
  kafkaBrokers: string[];
  redisUrl: string;
  mongoUrl: string;
  /** What every engine process gets (each adds its INSTANCE_ID). */
  engineEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** The harness's servers, a bus and store on them, and the engines' environment. */
export async function liveGameInfrastructure(): Promise<LiveGameInfrastructure> {
  const infra = testInfra();
  const infrastructure = await createDistributedInfrastructure(
    {
      service: 'live-game-e2e',
      instanceId: 'test',
      needs: ['bus', 'store'],
      kafkaBrokers: infra.kafkaBrokers,
      redisUrl: infra.redisUrl,
      mongoDb: 'unused',
    },
    silentLogger,
  );
  const group = new ComponentGroup(silentLogger, infrastructure.components);
  await group.start();
  const admin = createKafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: 'live-game-e2e-admin',
    logger: silentLogger,
  });
  return {
    infrastructure,
    admin,
    kafkaBrokers: infra.kafkaBrokers,
    redisUrl: infra.redisUrl,
    mongoUrl: infra.mongoUrl,
    engineEnv: {
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      REDIS_URL: infra.redisUrl,
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: `game-engine-e2e-${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: 'warn',
      GAME_RESULTS_SECONDS: '2',
      // A killed or frozen engine's votes partition moves 3 s after its last heartbeat (the
      // harness's broker allows sessions down to 1 s).
      GAME_KAFKA_SESSION_TIMEOUT_MS: '3000',
      GAME_KAFKA_HEARTBEAT_MS: '500',
      // UNDERDOG_TEST_VOTE_SLOTS=4 runs the suite with each game's votes over 4 slots (ADR 12).
      ...(process.env.UNDERDOG_TEST_VOTE_SLOTS
        ? { GAME_VOTE_SLOTS: process.env.UNDERDOG_TEST_VOTE_SLOTS }
        : {}),
    },
    stop: async () => {
      await admin.close();
      await group.stop();
    },
  };
}

export interface TournamentFixture {
  id: string;
  title: string;
  prize: string;
  startAt: Date;
  roundTimeSeconds: number;
}

export function tournamentMessage(fixture: TournamentFixture, status: TournamentStatus) {
  return create(TournamentSchema, {
    id: fixture.id,
    title: fixture.title,
    status,
    prize: fixture.prize,
    startAt: timestampFromDate(fixture.startAt),
    roundTimeSeconds: fixture.roundTimeSeconds,
  });
}

/** Publishes a `tournament.lifecycle` event as the tournament service does. */
export async function publishLifecycle(
  infrastructure: Infrastructure,
  tournamentId: string,
  kind: LifecycleKind,
  id: string,
): Promise<void> {
  await infrastructure.bus.publish(topics.tournamentLifecycle.name, [
    encodeEvent(
      TournamentLifecycleEventSchema,
      create(TournamentLifecycleEventSchema, {
        tournamentId,
        occurredAt: timestampFromDate(new Date()),
        kind,
      }),
      { key: tournamentId, id },
    ),
  ]);
}

type EventCase = NonNullable<GameEvent['kind']['case']>;
type EventValue<C extends EventCase> = Extract<GameEvent['kind'], { case: C }>['value'];

/** The game's events as a client of `game.events` sees them, with their event ids. */
export interface RecordedEvents {
  all: Array<{ id: string; event: GameEvent }>;
  of<C extends EventCase>(kind: C): Array<EventValue<C>>;
  stop(): Promise<void>;
}

export async function recordGameEvents(
  infrastructure: Infrastructure,
  tournamentId: string,
): Promise<RecordedEvents> {
  const all: RecordedEvents['all'] = [];
  const subscription = await infrastructure.bus.subscribe({
    groupId: `live-game-e2e-${randomUUID()}`,
    topics: [topics.gameEvents.name],
    fromBeginning: false,
    handleBatch: async (batch) => {
      for (const message of batch) {
        if (message.key !== tournamentId || !message.value) continue;
        all.push({
          id: message.headers[EventHeader.id] ?? '',
          event: fromBinary(GameEventSchema, message.value),
        });
      }
    },
  });
  return {
    all,
    of: <C extends EventCase>(kind: C) =>
      all
        .map(({ event }) => event.kind)
        .filter((event) => event.case === kind)
        .map((event) => event.value as EventValue<C>),
    stop: () => subscription.stop(),
  };
}

/**
 * Each round's phase events (voting started, voting ended, results, round completed) by distinct
 * event id: a step repeated after a take-over republishes the same id, which consumers
 * deduplicate, so two ids for one round's step would be a repeated round.
 */
export function stepIdsByRound(events: RecordedEvents): Map<string, Map<number, Set<string>>> {
  const steps = new Map<string, Map<number, Set<string>>>();
  for (const { id, event } of events.all) {
    const kind = event.kind;
    if (
      kind.case !== 'roundVotingStarted' &&
      kind.case !== 'votingEnded' &&
      kind.case !== 'roundResults' &&
      kind.case !== 'roundCompleted'
    ) {
      continue;
    }
    const byRound = steps.get(kind.case) ?? new Map<number, Set<string>>();
    steps.set(kind.case, byRound);
    const ids = byRound.get(kind.value.roundNumber) ?? new Set<string>();
    byRound.set(kind.value.roundNumber, ids);
    ids.add(id);
  }
  return steps;
}

/** The gateway's vote and join functions, calling the given engine's GameService over HTTP. */
export function gamesOn(infrastructure: Infrastructure, engine: ServiceProcess): Games {
  return new Games({
    clients: {
      game: createServiceClient(GameService, {
        mode: 'http',
        baseUrl: engine.url,
        caller: serviceCaller,
      }),
    },
    store: infrastructure.store,
    bus: infrastructure.bus,
    registry: createMetricsRegistry('live-game-e2e'),
    logger: silentLogger,
  });
}

/** Offline registrants of a tournament: each picks image (i mod 4) in every round. */
export async function registerOffline(
  infrastructure: Infrastructure,
  tournamentId: string,
  players: Player[],
): Promise<void> {
  for (const [i, player] of players.entries()) {
    await publishLifecycle(
      infrastructure,
      tournamentId,
      {
        case: 'offlineChoicesSaved',
        value: {
          userId: player.id,
          username: player.username,
          deviceId: `device-${player.id}`,
          choices: Array.from({ length: TOTAL_ROUNDS }, (_, r) => ({
            roundNumber: r + 1,
            selectedImageId: String(i % 4),
          })),
        },
      },
      `${tournamentId}:offline:${player.id}`,
    );
  }
}

/** Image (i mod 4) of the round: what offline registrant i picked. */
export const offlinePick = (i: number, round: number) => `round-${round}-image-${i % 4}`;

/** The per-image tally the players' own records call for: live acknowledgements plus offline picks. */
export function expectedTally(
  round: number,
  acknowledged: Map<string, string>,
  offline: Player[],
  alive: Set<string>,
): Record<string, number> {
  const tally: Record<string, number> = Object.fromEntries(
    [0, 1, 2, 3].map((m) => [`round-${round}-image-${m}`, 0]),
  );
  for (const imageId of acknowledged.values()) tally[imageId] = (tally[imageId] ?? 0) + 1;
  for (const [i, player] of offline.entries()) {
    if (!alive.has(player.id)) continue;
    const imageId = offlinePick(i, round);
    tally[imageId] = (tally[imageId] ?? 0) + 1;
  }
  return tally;
}

export { TournamentStatus };

/**
 * The gateway's HTTP edge in this process, in front of the real game-engine process (and the
 * real auth process, when given; visitors need none). The tournament service's part of the reads
 * (the tournament's own fields) comes from a stand-in that knows the one tournament in `status`:
 * the lifecycle is published by the test itself.
 */
export async function startReadsGateway(options: {
  engine: ServiceProcess;
  auth?: ServiceProcess;
  fixture: TournamentFixture;
  status: TournamentStatus;
  participantCount: number;
  name: string;
}) {
  const { engine, auth, fixture, status, participantCount, name } = options;
  const clients = createGatewayClients({
    auth: auth
      ? { mode: 'http', baseUrl: auth.url, caller: serviceCaller }
      : { mode: 'in-process', routes: (router) => router.service(AuthService, {}) },
    game: { mode: 'http', baseUrl: engine.url, caller: serviceCaller },
    tournament: {
      mode: 'in-process',
      routes: (router) =>
        router.service(TournamentService, {
          getServerTime: () => ({ serverTime: timestampFromDate(new Date()) }),
          getTournament: () => ({
            tournament: { ...tournamentMessage(fixture, status), participantCount },
          }),
          // The admin history shows each game's prize payment (issue 28): none confirmed here.
          listPrizePayments: () => ({ payments: [] }),
        }),
    },
    ads: { mode: 'in-process', routes: (router) => router.service(AdsService, {}) },
    notification: {
      mode: 'in-process',
      routes: (router) => router.service(NotificationService, {}),
    },
  });
  const bus = createMemoryBus({ logger: silentLogger });
  const group = new ComponentGroup(silentLogger, []);
  const store = createMemoryStore();
  const gateway = await createGateway({
    logger: silentLogger,
    registry: createMetricsRegistry(`${name}-gateway`),
    clients,
    store,
    bus,
    instanceId: name,
    settings: gatewaySettings({}, 'test'),
    readiness: () => group.readiness(),
  });
  const http = gateway.listen({ port: 0, host: '127.0.0.1' });
  await http.start?.();
  return {
    url: (path: string) => `http://127.0.0.1:${http.port()}${path}`,
    stop: async () => {
      await http.stop?.();
      await bus.close();
      await store.close();
    },
  };
}
