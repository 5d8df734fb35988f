import { randomBytes, randomInt } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import WebSocket from 'ws';
import {
  startKafkaCluster,
  startOwnMongo,
  startRedisSentinelGroup,
  testInfra,
  type KafkaCluster,
  type RedisSentinelGroup,
  type ServerHandle,
} from '@underdog/harness';
import { createKafkaBus } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { VOTE_SLOTS_FIELD, allSlotKeys, gameKeys, voteSlotsFrom } from '@underdog/live-game';
import { topics } from '@underdog/platform';
import { create, GameVoteEventSchema, toBinary } from '@underdog/proto';
import { VOTING_GRACE_MS } from '@underdog/rules';
import { waitFor } from '@underdog/test-support';
import { partitionOf } from '@underdog/bus';
import { startStack, type Stack, type StackProcess } from '../stack/stack';
import { judgeRound, readParked, readVotesLog, type RoundVerdict } from './fault-oracle';
import { pauseListener } from './fault-processes';
import { Players, seededRandom, type RoundVote, type SeededPlayer } from './fault-players';

/**
 * Issue 29's fault suite, in Jepsen's manner: on the distributed stack (two gateways, two
 * engines, supervised as Kubernetes would) against a replicated Redis (primary, replica, three
 * Sentinels) and a three-node KRaft Kafka (replication 3, min.insync.replicas 2), each scenario
 * plays a live game of FAULT_PLAYERS (300) players who vote at seeded random moments in rounds 1
 * and 2 and sit out round 3 (which ends the game), retrying as the web app does (@underdog/rules'
 * vote retry policy); one fault is injected at a seeded random moment of round 1's voting window;
 * every answer is recorded and judged (`fault-oracle.ts`) against the engine's tally, the game's
 * records and the `game.votes` log. Acceptance (issue 29, 1; issue 38, 1): 0 lost, 0 doubled
 * (in the records or against the log), 0 refused-but-counted, the tally per image equal to the
 * records and to the acknowledged-and-counted votes, every vote whose answer died with its
 * gateway given its fate by the client's own resend, ≥ 99 % of round 2's votes acknowledged,
 * round 1 closed within its deadline + grace + 4 s (5 s at the 1 s grace; a close the engine
 * held for votes cast in time too, ADR 9, 7; for a broker killed, 4 s after Kafka elected new
 * leaders for the game's partitions it led, if later: `closeBoundFor`),
 * the game played to its end once.
 *
 * Replay: FAULT_SEED=<the printed seed> (FAULT_SCENARIOS=gateway,kafka,… runs a subset, `all`
 * every scenario; unset: the ones that pass today, `passingToday`). FAULT_STRIKE_AT=<0…1>
 * strikes at that share of the window instead of the seeded one (1: at 80 % of the round, the
 * latest a scenario strikes), the seed's other draws unchanged.
 */
const seed = process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : randomInt(2 ** 31);
const requested = process.env.FAULT_SCENARIOS?.split(',').map((name) => name.trim());
/**
 * 100 players in `npm test` (the e2e tier, where the suite must add at most 10 minutes to a cold
 * run on a 2-core machine), 300 when a run asks for its scenarios (`pnpm faults`).
 */
const playerCount = Number(process.env.FAULT_PLAYERS ?? (requested ? 300 : 100));
/**
 * The scenarios `npm test` runs: those that passed at least three runs in a row
 * (docs/reliability.md, "The last run"); `redis` since its fixes (the store's client never ends
 * after a failover; a vote answered VOTE_NOT_RECORDED is resent until it gets a final answer),
 * three redis-only runs at 100 players. `pnpm faults` (FAULT_SCENARIOS=all) runs every scenario.
 * A scenario that fails reliably would be skipped here by name, visibly (jest lists it as
 * skipped and starts no server for it).
 */
const passingToday: string[] = [
  'gateway',
  'engine-kill',
  'engine-stop',
  'tournament',
  'redis',
  // Issue 38's scenarios that passed four runs (2026-11-29: the full run, alone, at K = 4 and
  // at 3 s).
  'poison',
  'capture',
  // In npm test since 2026-11-30 (docs/reliability.md, "In npm test"): misconf after three
  // passes in a row (one beside two CPU burners, one alone, a full CI run) once a replica's
  // resync after a failover started at once (repl-diskless-sync-delay 0: Redis's 5 s wait had
  // refused every write for 5.8 s); redis-stop passed four of five runs — beside the burners
  // it once missed round 2's availability (77 %): Kafka refused the votes' produce (fewer
  // in-sync replicas), not Redis. mongo-at-end passed four in a row and then failed a second
  // full CI run (its records not complete 60 s after the last round): out again.
  'redis-stop',
  'misconf',
  // Back since 2026-11-30 (docs/reliability.md, "What is left"): kafka once its capture no longer
  // waits for the votes partition's election (ADR 9, 6: four passes, one the seed that had
  // closed at +5.3 s, now +3.5 s); mongo-at-end once a write to many documents on FerretDB
  // locks them together (ADR 4: its records complete 0.7–2.4 s after the store answers, from
  // up to 14 s; three passes here, seven in the tracing runs).
  'kafka',
  'mongo-at-end',
  // Since 2026-11-30 (docs/reliability.md): broker+gateway once votes cast in time are held and
  // the close waits for them (ADR 9, 7) — it had failed on availability (92 of 100 round-1 votes
  // refused, the game decided among 8 voters). Every scenario now runs in npm test.
  'broker+gateway',
];
const only = requested?.includes('all') ? undefined : (requested ?? passingToday);
const roundSeconds = 6;
const graceMs = VOTING_GRACE_MS;
const votingRounds = 2;
const admin = { email: 'faults-admin@underdog.test', password: 'faults-admin-1' };

/**
 * The engine's Kafka group session and heartbeat, read from the chart (`gameEngine.env` in
 * charts/underdog/values.yaml: 10 s and 2 s), for a run at the production timeouts (issue 38, 3;
 * issue 35, acceptance 1) that follows the chart when it changes.
 */
function chartEngineEnv(name: string): string {
  const values = readFileSync(
    join(__dirname, '..', '..', 'charts', 'underdog', 'values.yaml'),
    'utf8',
  );
  const found = new RegExp(`^\\s+${name}: '(\\d+)'$`, 'm').exec(values)?.[1];
  if (!found) throw new Error(`${name} not in charts/underdog/values.yaml`);
  return found;
}
/**
 * The engines run at the chart's group session (10 s, heartbeat 2 s), as issue 38 asks;
 * `FAULT_ENGINE_SESSION=short` runs them at 3 s (heartbeat 500 ms), as npm test did before. At
 * 10 s, an engine struck (killed or stopped) that owns the game's `game.votes` partition held the
 * close until the group handed the partition over: +8.2 s (`engine-kill`) and +7.3 s
 * (`engine-stop`) past the deadline on 2026-11-29, beyond the bound. The close now reads a
 * partition whose applied mark stands still itself (ADR 9, `GAME_VOTES_STAND_STILL_MS`): +2.4 s
 * and +2.2 s at the same seed, the struck engine owning the partition in both.
 */
const engineKafkaEnv =
  process.env.FAULT_ENGINE_SESSION === 'short'
    ? { GAME_KAFKA_SESSION_TIMEOUT_MS: '3000', GAME_KAFKA_HEARTBEAT_MS: '500' }
    : {
        GAME_KAFKA_SESSION_TIMEOUT_MS: chartEngineEnv('GAME_KAFKA_SESSION_TIMEOUT_MS'),
        GAME_KAFKA_HEARTBEAT_MS: chartEngineEnv('GAME_KAFKA_HEARTBEAT_MS'),
      };

/** One scenario's figures: the table's row. */
interface Row {
  scenario: string;
  seed: number;
  faultAtMs: number;
  acknowledged: number;
  counted: number;
  lost: number;
  doubled: number;
  /** Counted ballots beyond the `game.votes` log (see `RoundVerdict.doubledByLog`). */
  doubledByLog: number;
  /** Round × image whose tally, records and acknowledged-and-counted votes disagree. */
  tallyDisagreements: number;
  retryable: number;
  refusedButCounted: number;
  indeterminate: number;
  /** Indeterminate votes the client's own resend never got a fate for. */
  unresolved: number;
  /** Round 2's acknowledged votes over the votes its players meant to cast (after recovery). */
  availability: number;
  closedAfterDeadlineMs: number;
  /**
   * How late round 1 may close: `closeBoundMs` (a close the engine held for votes cast in time
   * too), or, for a broker killed, 4 s after the game's partitions it led had new leaders, if
   * that is later (`closeBoundFor`).
   */
  closeBoundMs: number;
  /** From the fault until the faulty part's duty was taken over (see each fault's `recovered`). */
  recoveryMs: number;
  /** The longest wait between two acknowledgements of round 1 across the fault. */
  ackGapMs: number;
  /** Acknowledged votes beyond each voting round's `results_started` total (lost for sure). */
  lostByTally: number;
  gameEnded: boolean;
  /** From the last round's results (as the players saw them) to the players' `game_ended`. */
  endedAfterLastResultsMs: number;
  /** Epoch ms when a player first saw `game_ended` (NaN: never). */
  gameEndedAt: number;
  notes: string;
}

const rows: Row[] = [];
/** A figure, or – when it cannot be known (no finished records). */
const show = (value: number) => (Number.isNaN(value) ? '–' : String(value));
const secondsOf = (ms: number) => (Number.isNaN(ms) ? '–' : `${(ms / 1000).toFixed(1)} s`);

class Api {
  private cookie = '';
  constructor(readonly baseUrl: string) {}
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            'x-device-id': 'faults-admin',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(this.cookie ? { cookie: this.cookie } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(60_000),
        });
        const setCookie = response.headers.get('set-cookie');
        if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
        return (text ? JSON.parse(text) : undefined) as T;
      } catch (error) {
        // A pooled connection the server closed, or a gateway restarting: try again.
        if (attempt >= 5) throw error;
        await sleep(500);
      }
    }
  }
}

interface Details {
  tournament: { status: string };
  rounds: Array<{ roundNumber: number; votes: Array<{ username: string; imageId: string }> }>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads every 250 ms until `read` answers (a read that fails is tried again), at most `timeoutMs`. */
async function until<T>(
  read: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const found = await waitFor(
    async () => {
      const value = await read();
      return value === undefined ? undefined : { value };
    },
    { message: what, timeoutMs, intervalMs: 250 },
  );
  return found.value;
}

/** Until the engine knows the tournament: a `/ws` subscription gets its snapshot. */
function gameKnown(gatewayUrl: string, tournamentId: string): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}/ws`);
    const done = (value: true | undefined) => {
      socket.terminate();
      resolve(value);
    };
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
    );
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"type":"game_state_update"')) done(true);
      else if (text.startsWith('{"type":"error"')) done(undefined);
    });
    socket.on('error', () => done(undefined));
  });
}

/** What a scenario's fault gets: the game, its round 1 window, and the moment to strike. */
interface FaultContext {
  tournamentId: string;
  startAt: number;
  /** Resolves with round 1's deadline once its voting opened. */
  round1: Promise<number>;
  /** Resolves with round `n`'s deadline once its voting opened. */
  roundDeadline(n: number): Promise<number>;
  /** Waits until the seeded moment of round 1's window; resolves with ms after it opened. */
  strikeMoment(): Promise<number>;
  random: () => number;
}

/** What an injected fault tells: when it struck and when its part's duty was taken over. */
interface Struck {
  /** ms after round 1's voting opened (0 for a fault before it). */
  atMs: number;
  /** Epoch ms of the fault. */
  at: number;
  note: string;
  /** Resolves when the faulty part's duty is taken over (a new leader, a restarted process…). */
  recovered: Promise<void>;
  /**
   * For a fault that leaves the game's votes partition without a leader: resolves with the epoch
   * ms it has one again (the engine holds the round's close until then, 2 s past the grace at
   * most: ADR 9, 7).
   */
  votesLeaderBack?: Promise<number>;
  /**
   * For a broker killed while it also led the game's `game.events` partition: resolves with the
   * epoch ms that partition has a leader again. Until then no service can publish the round's
   * results: round 1's close is judged from it too (`closeBoundFor`).
   */
  eventsLeaderBack?: Promise<number>;
}

/** A fault: injects it, and heals what the supervisor does not (after the game). */
interface Fault {
  inject(context: FaultContext): Promise<Struck>;
  heal?(): Promise<void>;
}

describe(`the fault suite (seed ${seed}; replay with FAULT_SEED=${seed})`, () => {
  let cluster: KafkaCluster;
  let redis: RedisSentinelGroup;
  /**
   * The suite's own documents store: `mongo-at-end` SIGSTOPs it for 20 s, and the shared one
   * (`testInfra().mongoUrl`) serves the tests running beside the suite (a CI run's
   * tournaments.e2e timed out while it was stopped).
   */
  let documents: ServerHandle;
  let stack: Stack;
  let api: Api;
  let logDir: string;
  let sentinelRedis: Redis;
  const restarts: string[] = [];

  beforeAll(async () => {
    const infra = testInfra();
    logDir = mkdtempSync(join(tmpdir(), 'underdog-faults-'));
    [cluster, redis, documents] = await Promise.all([
      startKafkaCluster(),
      // As docs/deploy.md asks of production: AOF everysec, and two replicas so the primary can
      // refuse writes it could not replicate (min-replicas-to-write 1) — an old primary cut off
      // by a failover then takes no write the failover would discard (the split brain that
      // lost 13 acknowledged votes in `misconf` after `redis-stop`).
      startRedisSentinelGroup({
        replicas: 2,
        sentinels: 3,
        name: 'underdog',
        serverArgs: [
          ...['--appendonly', 'yes', '--appendfsync', 'everysec'],
          ...['--min-replicas-to-write', '1', '--min-replicas-max-lag', '10'],
          // As the chart's redis.serverConfig: a replica's full resync after a failover starts
          // at once; Redis's default 5 s wait refused every write (NOREPLICAS) for 5.8 s.
          ...['--repl-diskless-sync-delay', '0'],
        ],
      }),
      startOwnMongo(),
    ]);
    stack = await startStack({
      infra: {
        redisUrl: `redis://127.0.0.1:${redis.primaryPort}`,
        kafkaBrokers: cluster.brokers,
        mongoUrl: documents.url,
        smtpUrl: infra.smtpUrl,
      },
      extraGateways: 1,
      extraEngines: 1,
      supervise: true,
      restartDelayMs: () => 200,
      onRestart: (instance) => restarts.push(instance),
      logDir,
      logLevel: process.env.FAULT_LOG_LEVEL ?? 'warn',
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        BENCHMARK_SEED: 'on',
        REDIS_SENTINELS: redis.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
        REDIS_SENTINEL_NAME: redis.name,
        // As the chart with Sentinel: a withdrawal is final only once the replica confirmed it.
        VOTE_WITHDRAWAL_REPLICAS: '1',
        GAME_RESULTS_SECONDS: '2',
        // The close's hold for votes cast in time (ADR 9, 7) is the engine's own: 2 s past the
        // grace, so a held close too is within the bound below.
        // The engines' group session: 3 s, or the chart's 10 s (FAULT_ENGINE_SESSION=chart).
        ...engineKafkaEnv,
        // UNDERDOG_TEST_VOTE_SLOTS=4 runs every scenario with each game's votes over 4 slots
        // (ADR 12), as the live-game suites do.
        ...(process.env.UNDERDOG_TEST_VOTE_SLOTS
          ? { GAME_VOTE_SLOTS: process.env.UNDERDOG_TEST_VOTE_SLOTS }
          : {}),
      },
    });
    await stack.waitUntilReady(180_000);
    api = new Api(stack.gatewayUrl);
    await api.call('POST', '/api/login', admin);
    sentinelRedis = new Redis({ sentinels: redis.sentinels, name: redis.name });
    sentinelRedis.on('error', () => undefined);
    console.log(
      `fault suite: seed ${seed} (replay: FAULT_SEED=${seed}), ${playerCount} players, vote slots ${process.env.UNDERDOG_TEST_VOTE_SLOTS ?? 1}, engine Kafka session ${engineKafkaEnv.GAME_KAFKA_SESSION_TIMEOUT_MS} ms (heartbeat ${engineKafkaEnv.GAME_KAFKA_HEARTBEAT_MS} ms), logs ${logDir}, kafka logs ${cluster.logDir}, redis and sentinel log (after the run) ${redis.logFile}`,
    );
  }, 300_000);

  afterAll(async () => {
    const table = [
      '| fault | seed | struck (ms into round 1) | acknowledged | counted | lost | doubled (records, log) | tally disagreements | retryable refusals | refused but counted | indeterminate (unresolved) | round 2 acknowledged | round 1 closed after its deadline (bound) | recovery | longest wait between acks | game ended | game_ended after the last results |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.scenario} | ${r.seed} | ${r.faultAtMs} | ${r.acknowledged} | ${show(r.counted)} | ${show(r.lost)} | ${show(r.doubled)}, ${show(r.doubledByLog)} | ${show(r.tallyDisagreements)} | ${r.retryable} | ${r.refusedButCounted} | ${r.indeterminate} (${r.unresolved}) | ${(r.availability * 100).toFixed(1)} % | ${secondsOf(r.closedAfterDeadlineMs)} (≤ ${secondsOf(r.closeBoundMs)}) | ${secondsOf(r.recoveryMs)} | ${secondsOf(r.ackGapMs)} | ${r.gameEnded ? 'yes' : 'no'} | ${secondsOf(r.endedAfterLastResultsMs)} |`,
      ),
    ].join('\n');
    if (logDir) writeFileSync(join(logDir, 'faults.md'), `${table}\n`);
    console.log(
      `fault suite (seed ${seed}):\n${table}\n${rows.map((r) => `${r.scenario}: ${r.notes}`).join('\n')}`,
    );
    sentinelRedis?.disconnect();
    await stack?.stop();
    await Promise.all([cluster?.stop(), redis?.stop(), documents?.stop()]);
  }, 120_000);

  /** A stack process by its INSTANCE_ID (the first replica's log is `<name>.log`). */
  const processNamed = (instance: string): StackProcess => {
    const log = instance.replace(/-1$/, '');
    const found = stack.processes.find((p) => p.logFile.endsWith(`/${log}.log`));
    if (!found) throw new Error(`no process ${instance}`);
    return found;
  };

  /** The engine replica holding the game's lease now. */
  const engineOwning = async (tournamentId: string): Promise<string> => {
    const lease = await until(
      async () => (await sentinelRedis.get(`game:{${tournamentId}}:lease`)) ?? undefined,
      'the game lease',
    );
    return lease.slice(0, lease.indexOf('|'));
  };

  /** Kills a stack process by its instance name; the supervisor starts it again. */
  const killInstance = (instance: string, signal: NodeJS.Signals = 'SIGKILL') => {
    const proc = processNamed(instance);
    process.kill(proc.pid, signal);
    return proc;
  };

  /**
   * Every process answers /readyz again once the killed one runs anew: the marker that the kill
   * was noticed is the supervisor's new process (a new pid), not a pause.
   */
  const stackReady = async (proc: StackProcess, killedPid: number) => {
    await waitFor(() => proc.pid !== killedPid && proc.pid !== -1, {
      message: `${proc.name} started again`,
      timeoutMs: 120_000,
      intervalMs: 100,
    });
    await stack.waitUntilReady(120_000);
  };

  /** Another engine replica holds the game's lease. */
  const leaseMoved = (tournamentId: string, from: string) =>
    until(
      async () => ((await engineOwning(tournamentId)) !== from ? true : undefined),
      `the lease to leave ${from}`,
      120_000,
    ).then(() => undefined);

  async function play(name: string, index: number, fault: Fault): Promise<Row> {
    const scenarioSeed = (seed + index * 7919) % 2 ** 31;
    const random = seededRandom(scenarioSeed);
    const tournament = await api.call<{ id: string; title: string; prize: string }>(
      'POST',
      '/api/tournaments',
      {
        title: `Fault ${name} ${new Date().toISOString()}`,
        prize: '$1',
        startAt: new Date(Date.now() + 3_600_000).toISOString(),
        roundTimeSeconds: roundSeconds,
      },
    );
    await until(() => gameKnown(stack.gatewayUrl, tournament.id), 'the engine to know the game');
    const seeded = await api.call<{ cookieName: string; players: SeededPlayer[] }>(
      'POST',
      '/api/benchmark/players',
      { count: playerCount, label: randomBytes(3).toString('hex'), tournamentId: tournament.id },
    );
    const players = new Players({
      gatewayUrls: stack.gatewayUrls,
      cookieName: seeded.cookieName,
      tournamentId: tournament.id,
      players: seeded.players,
      seed: scenarioSeed,
      votingRounds,
      voteSpread: 0.9,
      graceMs,
    });
    try {
      await players.connect();
      const startAt = Date.now() + 3_000;
      await api.call('PUT', `/api/tournaments/${tournament.id}`, {
        title: tournament.title,
        prize: tournament.prize,
        startAt: new Date(startAt).toISOString(),
        roundTimeSeconds: roundSeconds,
      });
      const round1 = until(async () => players.rounds.get(1)?.deadline, 'round 1 to open', 90_000);
      round1.catch(() => undefined);
      const drawnStrikeAt = random();
      const strikeAt = process.env.FAULT_STRIKE_AT
        ? Number(process.env.FAULT_STRIKE_AT)
        : drawnStrikeAt;
      const context: FaultContext = {
        tournamentId: tournament.id,
        startAt,
        round1,
        roundDeadline: (n) =>
          until(async () => players.rounds.get(n)?.deadline, `round ${n} to open`, 120_000),
        random,
        async strikeMoment() {
          const deadline = await round1;
          const opened = deadline - roundSeconds * 1000;
          // Anywhere in the first 80 % of the window, so votes follow the fault too.
          const at = opened + strikeAt * roundSeconds * 1000 * 0.8;
          await sleep(Math.max(0, at - Date.now()));
          return Date.now() - opened;
        },
      };
      const struck = await fault.inject(context);
      const recoveryMs = await struck.recovered.then(
        () => Date.now() - struck.at,
        () => Number.NaN,
      );
      const leaderBackAt = await (struck.votesLeaderBack ?? Promise.resolve(0)).catch(
        () => Number.NaN,
      );
      const eventsBackAt = await struck.eventsLeaderBack?.catch(() => Number.NaN);
      const ended = await players.gameEnded(60_000).then(
        () => true,
        () => false,
      );
      await fault.heal?.();
      await stack.waitUntilReady(120_000);

      // The records, once the game's are written (status finished and every round there).
      let lastRead = 'nothing read';
      const details = await until(
        async () => {
          const read = await api
            .call<Details>('GET', `/api/admin/tournaments/${tournament.id}/details`)
            .catch((error: unknown) => {
              lastRead = `failed: ${error instanceof Error ? error.message : String(error)}`;
              throw error;
            });
          const played = Math.max(0, ...players.rounds.keys());
          lastRead = `status ${read.tournament.status}, ${read.rounds.length} of ${played} round(s)`;
          return read.tournament.status === 'finished' && read.rounds.length >= played
            ? read
            : undefined;
        },
        'the game records',
        ended ? 60_000 : 1_000,
      ).catch(() => undefined);

      // The whole `game.votes` log of the game, read from the topic's start (doubles are judged
      // against what was produced, not against records keyed per player).
      const log = details ? await readVotesLog(cluster.brokers, tournament.id) : [];
      const gameIds = new Set(players.gameIds);
      const verdicts: RoundVerdict[] = [];
      /** Every seeded player in round 1; then the voters of a winning image of the round before. */
      const eligibleIn = (round: number): Set<string> | undefined => {
        if (round === 1) return new Set(seeded.players.map((player) => player.username));
        const winning = players.rounds.get(round - 1)?.winningImageIds;
        const before = details?.rounds.find((r) => r.roundNumber === round - 1)?.votes;
        if (!winning || !before) return undefined;
        return new Set(
          before.filter((vote) => winning.includes(vote.imageId)).map((vote) => vote.username),
        );
      };
      /** Without finished records: acknowledged votes beyond the round's own tally. */
      let lostByTally = 0;
      for (let round = 1; round <= votingRounds; round += 1) {
        const seen = players.rounds.get(round);
        // The K vote slots' tallies summed (docs/adr/0012): one key with one slot.
        const slots = voteSlotsFrom(
          (await sentinelRedis.hget(gameKeys(tournament.id).state, VOTE_SLOTS_FIELD)) ?? '1',
        );
        const tally: Record<string, string> = {};
        for (const slot of allSlotKeys(tournament.id, slots)) {
          for (const [image, n] of Object.entries(await sentinelRedis.hgetall(slot.tally(round)))) {
            tally[image] = String(Number(tally[image] ?? 0) + Number(n));
          }
        }
        const verdict = judgeRound({
          round,
          eligible: eligibleIn(round),
          votes: players.votesOf(round),
          tally: Object.fromEntries(Object.entries(tally).map(([image, n]) => [image, Number(n)])),
          shown: seen?.votes,
          records: details?.rounds.find((r) => r.roundNumber === round)?.votes ?? (details && []),
          log: log.filter((m) => gameIds.has(m.gameId)),
        });
        verdicts.push(verdict);
        if (seen?.totalVotes !== undefined)
          lostByTally += Math.max(0, verdict.acknowledged - seen.totalVotes);
      }
      const sum = (figure: (verdict: RoundVerdict) => number) =>
        verdicts.reduce((total, verdict) => total + figure(verdict), 0);
      const examples = verdicts.flatMap((v) => [...v.tallyDisagreements, ...v.examples]);
      const round2 = verdicts[1]!;
      const seen1 = players.rounds.get(1);
      const acks = [...players.votesOf(1).values()]
        .flatMap((vote) => vote.attempts)
        .filter((attempt) => attempt.answer === 'ack')
        .map((attempt) => attempt.answeredAt!)
        .sort((a, b) => a - b);
      const before = acks.filter((at) => at <= struck.at).at(-1) ?? struck.at;
      const after = acks.find((at) => at > struck.at);
      const row: Row = {
        scenario: name,
        seed: scenarioSeed,
        faultAtMs: struck.atMs,
        acknowledged: sum((v) => v.acknowledged),
        // Unknown without the game's records (the row says the game did not end).
        counted: sum((v) => v.counted),
        lost: sum((v) => v.lost),
        doubled: details ? sum((v) => v.doubledInRecords) : Number.NaN,
        doubledByLog: sum((v) => v.doubledByLog),
        tallyDisagreements: details ? sum((v) => v.tallyDisagreements.length) : Number.NaN,
        retryable: sum((v) => v.retryableAnswers),
        refusedButCounted: sum((v) => v.refusedButCounted),
        indeterminate: sum((v) => v.indeterminate),
        unresolved: sum((v) => v.unresolved),
        availability: players.rounds.has(2)
          ? round2.wanted === 0
            ? 0
            : round2.wantedAcknowledged / round2.wanted
          : availableAfter(players.votesOf(1), struck.at + recoveryMs, seen1?.deadline),
        closedAfterDeadlineMs:
          seen1?.resultsAt !== undefined ? seen1.resultsAt - seen1.deadline : Number.NaN,
        closeBoundMs: closeBoundFor(
          seen1?.deadline,
          struck.votesLeaderBack ? Math.max(leaderBackAt, eventsBackAt ?? 0) : undefined,
        ),
        recoveryMs,
        ackGapMs: after === undefined ? Number.NaN : after - before,
        lostByTally,
        gameEnded: ended && details?.tournament.status === 'finished' && players.gameIds.size === 1,
        gameEndedAt: players.gameEndedAt ?? Number.NaN,
        endedAfterLastResultsMs: (() => {
          const last = players.rounds.get(Math.max(0, ...players.rounds.keys()))?.resultsAt;
          return players.gameEndedAt !== undefined && last !== undefined
            ? players.gameEndedAt - last
            : Number.NaN;
        })(),
        notes: [
          struck.note,
          ...(struck.votesLeaderBack && seen1
            ? [
                `votes partition's leader back ${secondsOf(Math.abs(leaderBackAt - seen1.deadline))} ${leaderBackAt < seen1.deadline ? 'before' : 'after'} the deadline`,
              ]
            : []),
          ...(eventsBackAt !== undefined && seen1
            ? [
                `events partition's leader back ${secondsOf(Math.abs(eventsBackAt - seen1.deadline))} ${eventsBackAt < seen1.deadline ? 'before' : 'after'} the deadline`,
              ]
            : []),
          `games started ${players.gameIds.size}, ended ${players.endedGameIds.size}`,
          details
            ? `records: finished, ${details.rounds.length} round(s)`
            : `records: not finished within 60 s of the last round (last read: ${lastRead}); acknowledged beyond the tally: ${lostByTally}`,
          `rounds seen: ${[...players.rounds]
            .map(
              ([round, seen]) =>
                `${round} (seen open ${seen.deadline - seen.openedSeenAt} ms before its deadline, results ${seen.resultsAt === undefined ? 'never' : `+${seen.resultsAt - seen.deadline} ms`}, ${seen.totalVotes ?? '?'} votes)`,
            )
            .join(', ')}`,
          ...verdicts.map(
            (v, i) =>
              `round ${i + 1} final answers: ${[...v.finals].map(([code, n]) => `${code} ${n}`).join(', ')}`,
          ),
          `round 2: ${round2.wantedAcknowledged} acknowledged of ${round2.wanted} players still in`,
          `resends after a lost answer ${players.attempts('resend')}, policy retries ${players.attempts('retry')}`,
          `game.votes messages of the game ${log.filter((m) => gameIds.has(m.gameId)).length}`,
          `reconnects ${players.reconnects}`,
          ...examples,
        ].join('; '),
      };
      rows.push(row);
      console.log(`${name}: ${JSON.stringify(row)}`);
      return row;
    } finally {
      players.close();
    }
  }

  /**
   * How late round 1 may close after its deadline. Issue 29's "deadline + 5 s" was set with a 1 s
   * grace: the ordinary close (deadline + grace) plus 4 s for the fault. Tied to the grace, so a
   * longer grace (issue 27's 2 s example) does not eat the fault's allowance.
   */
  const closeBoundMs = graceMs + 4_000;

  /**
   * Round 1's close bound: `closeBoundMs` after its deadline — or, for a broker killed
   * (`electedAt`: when the game's votes partition, and its events partition if the broker led
   * it too, had new leaders), 4 s after that election if it came later. Until Kafka elects,
   * the round's results cannot be published (events partition), the group coordinators the
   * broker held have not moved, and the votes' end is unknown; the election is Kafka's (the
   * brokers' session: 3 s here, 9 s by Kafka's default). The same 4 s the issue gives a fault,
   * counted from Kafka's recovery. NaN (a leader never came back in the suite's wait):
   * `closeBoundMs`.
   */
  function closeBoundFor(deadline: number | undefined, electedAt: number | undefined): number {
    if (deadline === undefined || electedAt === undefined || Number.isNaN(electedAt)) {
      return closeBoundMs;
    }
    return Math.max(closeBoundMs, electedAt - deadline + 4_000);
  }

  /** The leader of the game's `game.events` partition now. */
  async function eventsLeadership(tournamentId: string) {
    const partition = partitionOf(tournamentId, topics.gameEvents.partitions);
    return { partition, leader: await cluster.leaderOf(topics.gameEvents.name, partition) };
  }

  /** When `killed` led the game's `game.events` partition: when it has another leader. */
  function eventsLeaderBackAfter(
    events: { partition: number; leader: number },
    killed: number,
  ): Promise<number> | undefined {
    if (events.leader !== killed) return undefined;
    const back = leaderOtherThan(topics.gameEvents.name, events.partition, killed);
    back.catch(() => undefined);
    return back;
  }

  /** Resolves with the epoch ms `topic`/`partition` has a leader other than `killed`. */
  function leaderOtherThan(topic: string, partition: number, killed: number): Promise<number> {
    return until(
      async () => ((await cluster.leaderOf(topic, partition)) !== killed ? Date.now() : undefined),
      `a new leader for ${topic}/${partition}`,
    );
  }

  /** After recovery, at least this share of round 2's votes is acknowledged (issue 38, 1). */
  const availabilityBound = 0.99;

  /**
   * Issue 29's acceptance 1 and issue 38's oracle for one scenario. A failure's diff names the
   * scenario and shows the measured figure of a missed bound (CI prints only the failures).
   */
  function expectAcceptance(row: Row) {
    const within = (ok: boolean, figure: number) => (ok ? 'within bound' : figure);
    expect({
      scenario: row.scenario,
      lost: row.lost,
      doubled: row.doubled,
      doubledByLog: row.doubledByLog,
      tallyDisagreements: row.tallyDisagreements,
      refusedButCounted: row.refusedButCounted,
      unresolvedIndeterminate: row.unresolved,
      availableAfterRecovery: within(row.availability >= availabilityBound, row.availability),
      closedAfterDeadlineMs: within(
        row.closedAfterDeadlineMs <= row.closeBoundMs,
        row.closedAfterDeadlineMs,
      ),
      gameEnded: row.gameEnded,
      counted: row.counted > 0,
      acknowledgedBeyondTally: row.lostByTally,
    }).toEqual({
      scenario: row.scenario,
      lost: 0,
      doubled: 0,
      doubledByLog: 0,
      tallyDisagreements: 0,
      refusedButCounted: 0,
      unresolvedIndeterminate: 0,
      availableAfterRecovery: 'within bound',
      closedAfterDeadlineMs: 'within bound',
      gameEnded: true,
      counted: true,
      acknowledgedBeyondTally: 0,
    });
  }

  /**
   * The `poison` scenario's messages, on the game's votes partition (keyed as the gateway keys a
   * game of one vote slot): bytes that are no event, and a vote event the gateway could never
   * have produced (no vote id, no game, round 0, a cast time past any date), alternately.
   */
  const poisonCount = 6;
  const poisonMessages = (tournamentId: string) =>
    Array.from({ length: poisonCount }, (_, i) => ({
      key: tournamentId,
      headers: {},
      value:
        i % 2 === 0
          ? Uint8Array.from([0xff, 0xff, 0xff, 0x07, i])
          : toBinary(
              GameVoteEventSchema,
              create(GameVoteEventSchema, {
                tournamentId,
                kind: {
                  case: 'voteCast',
                  value: {
                    voteId: '',
                    gameId: '',
                    userId: `poison-${i}`,
                    username: `poison-${i}`,
                    roundNumber: 0,
                    imageId: 'poison',
                    castAt: { seconds: 10n ** 15n, nanos: 0 },
                  },
                },
              }),
            ),
    }));
  /** The dead letters the `poison` scenario found for its game (their reasons). */
  let parked: string[] = [];

  /** How long `mongo-at-end` keeps the documents store stopped, from the last round's deadline. */
  const mongoStopMs = 20_000;
  /** `mongo-at-end`: when the store answered again, and the row (for its own check). */
  let mongoResumedAt = 0;
  /**
   * How late `game_ended` may reach the players after the last round's results: the results'
   * show (GAME_RESULTS_SECONDS, 2 s here), the engine's wait for the records
   * (GAME_END_RECORDS_WAIT_MS, 2 s by default) and the same 4 s allowance as a round's close.
   */
  const endBoundMs = 2_000 + 2_000 + 4_000;

  const scenarios: Array<{ name: string; fault: () => Fault; check?: (row: Row) => void }> = [
    {
      // Its players' sockets close; they reconnect to gateway 1 and subscribe again.
      name: 'gateway',
      fault: () => ({
        async inject(context) {
          const atMs = await context.strikeMoment();
          const at = Date.now();
          const proc = killInstance('gateway-2');
          return {
            atMs,
            at,
            note: `kill -9 gateway-2 (pid ${proc.pid}); recovery: restarted and ready`,
            recovered: stackReady(proc, proc.pid),
          };
        },
      }),
    },
    {
      name: 'engine-kill',
      fault: () => ({
        async inject(context) {
          await context.round1;
          const owner = await engineOwning(context.tournamentId);
          const atMs = await context.strikeMoment();
          const at = Date.now();
          const proc = killInstance(owner);
          return {
            atMs,
            at,
            note: `kill -9 ${owner} (pid ${proc.pid}), the lease holder; recovery: the lease moved`,
            recovered: leaseMoved(context.tournamentId, owner),
          };
        },
      }),
    },
    {
      name: 'engine-stop',
      fault: () => {
        let resumed: Promise<void> = Promise.resolve();
        return {
          async inject(context) {
            await context.round1;
            const owner = await engineOwning(context.tournamentId);
            const atMs = await context.strikeMoment();
            const at = Date.now();
            const proc = killInstance(owner, 'SIGSTOP');
            resumed = sleep(10_000).then(() => {
              process.kill(proc.pid, 'SIGCONT');
            });
            return {
              atMs,
              at,
              note: `SIGSTOP ${owner} (pid ${proc.pid}) for 10 s, the lease holder; recovery: the lease moved`,
              recovered: leaseMoved(context.tournamentId, owner),
            };
          },
          heal: () => resumed,
        };
      },
    },
    {
      name: 'tournament',
      fault: () => ({
        async inject(context) {
          await sleep(Math.max(0, context.startAt - Date.now()));
          const at = Date.now();
          const proc = killInstance('tournament');
          return {
            atMs: 0,
            at,
            note: `kill -9 tournament (pid ${proc.pid}) at the start time; recovery: restarted and ready`,
            recovered: stackReady(proc, proc.pid),
          };
        },
      }),
    },
    {
      name: 'kafka',
      fault: () => {
        let killed = 0;
        return {
          async inject(context) {
            await context.round1;
            const partition = partitionOf(context.tournamentId, topics.gameVotes.partitions);
            const leader = await cluster.leaderOf(topics.gameVotes.name, partition);
            const events = await eventsLeadership(context.tournamentId);
            const atMs = await context.strikeMoment();
            const at = Date.now();
            await cluster.kill(leader);
            killed = leader;
            const eventsLeaderBack = eventsLeaderBackAfter(events, leader);
            const leaderBack = leaderOtherThan(topics.gameVotes.name, partition, leader);
            return {
              atMs,
              at,
              note: `kill -9 broker ${leader}, leader of ${topics.gameVotes.name}/${partition}${eventsLeaderBack ? ` and ${topics.gameEvents.name}/${events.partition}` : ''}; recovery: a new leader`,
              recovered: leaderBack.then(() => undefined),
              votesLeaderBack: leaderBack,
              eventsLeaderBack,
            };
          },
          async heal() {
            await cluster.restart(killed);
            await cluster.inSync(topics.gameVotes.name);
          },
        };
      },
    },
    {
      // Poison on the game's votes partition mid-round (issue 38, 4): parked in
      // game.votes.dead-letter, never stalling the partition; the votes after it still apply.
      name: 'poison',
      fault: () => {
        let tournamentId = '';
        return {
          async inject(context) {
            tournamentId = context.tournamentId;
            await context.round1;
            const atMs = await context.strikeMoment();
            const at = Date.now();
            const producer = createKafkaBus({
              brokers: cluster.brokers,
              clientId: 'faults-poison',
              logger: createLogger({ service: 'faults-poison', level: 'silent' }),
            });
            try {
              await producer.publish(topics.gameVotes.name, poisonMessages(tournamentId));
            } finally {
              await producer.close();
            }
            const partition = partitionOf(tournamentId, topics.gameVotes.partitions);
            return {
              atMs,
              at,
              note: `${poisonCount} poison messages (unreadable bytes, invalid votes) on ${topics.gameVotes.name}/${partition}; recovery: all parked in ${topics.gameVotesDeadLetter.name}`,
              recovered: until(
                async () =>
                  (await readParked(cluster.brokers, tournamentId)).length >= poisonCount
                    ? true
                    : undefined,
                'the poison parked',
              ).then(() => undefined),
            };
          },
          async heal() {
            parked = await readParked(cluster.brokers, tournamentId);
          },
        };
      },
      // Each poison message parked once, by the reason it was poison.
      check: () =>
        expect([...parked].sort()).toEqual(
          Array.from({ length: poisonCount }, (_, i) =>
            i % 2 === 0 ? 'unreadable' : 'invalid',
          ).sort(),
        ),
    },
    {
      // The documents store (the harness's FerretDB) SIGSTOPped at the last round's deadline,
      // 20 s: the game ends for its players on time; its records catch up once it answers.
      name: 'mongo-at-end',
      fault: () => {
        let resume = () => undefined as void;
        return {
          async inject(context) {
            // The game ends at round 3, which the players sit out, or already at round 2 when
            // its votes leave one player (seed 1615362093 waited 120 s for a round 3 that never
            // opened). Stopped from round 2's deadline for 20 s, the store is down at the end
            // either way: round 3 and its results take about 12 s, the end waits 2 s for records.
            const deadline = await context.roundDeadline(votingRounds);
            await sleep(Math.max(0, deadline - Date.now()));
            const at = Date.now();
            const port = Number(new URL(documents.url).port);
            const paused = pauseListener(port);
            resume = () => {
              if (mongoResumedAt === 0) mongoResumedAt = Date.now();
              paused.resume();
            };
            const resumed = sleep(mongoStopMs).then(resume);
            return {
              atMs: 0,
              at,
              note: `SIGSTOP the documents store (FerretDB, port ${port}, pid ${paused.pid}) at round ${votingRounds}'s deadline (the game ends at it or the next) for ${mongoStopMs / 1000} s; recovery: it answers again`,
              recovered: resumed,
            };
          },
          heal: async () => resume(),
        };
      },
      // The end reached the players while the store was still stopped, and on time.
      check: (row) =>
        expect({
          endedWhileStoreStopped: row.gameEndedAt < mongoResumedAt,
          endedInTime: row.endedAfterLastResultsMs <= endBoundMs,
        }).toEqual({ endedWhileStoreStopped: true, endedInTime: true }),
    },
    {
      // The engine holding the lease killed at the capture moment of round 1 (its deadline plus
      // the grace), when it marks the votes' end and captures the partition's end offset.
      name: 'capture',
      fault: () => ({
        async inject(context) {
          const deadline = await context.round1;
          const owner = await engineOwning(context.tournamentId);
          await sleep(Math.max(0, deadline + graceMs - Date.now()));
          const at = Date.now();
          const proc = killInstance(owner);
          return {
            atMs: at - (deadline - roundSeconds * 1000),
            at,
            note: `kill -9 ${owner} (pid ${proc.pid}), the lease holder, at round 1's capture (deadline + ${graceMs} ms); recovery: the lease moved`,
            recovered: leaseMoved(context.tournamentId, owner),
          };
        },
      }),
    },
    {
      // Two faults at once: the broker leading the game's votes partition and gateway 2.
      name: 'broker+gateway',
      fault: () => {
        let killed = 0;
        return {
          async inject(context) {
            await context.round1;
            const partition = partitionOf(context.tournamentId, topics.gameVotes.partitions);
            const leader = await cluster.leaderOf(topics.gameVotes.name, partition);
            const events = await eventsLeadership(context.tournamentId);
            const atMs = await context.strikeMoment();
            const at = Date.now();
            const proc = killInstance('gateway-2');
            await cluster.kill(leader);
            killed = leader;
            const eventsLeaderBack = eventsLeaderBackAfter(events, leader);
            const newLeader = leaderOtherThan(topics.gameVotes.name, partition, leader);
            return {
              atMs,
              at,
              note: `kill -9 gateway-2 (pid ${proc.pid}) and broker ${leader}, leader of ${topics.gameVotes.name}/${partition}${eventsLeaderBack ? ` and ${topics.gameEvents.name}/${events.partition}` : ''}, together; recovery: a new leader and gateway-2 ready`,
              recovered: Promise.all([newLeader, stackReady(proc, proc.pid)]).then(() => undefined),
              votesLeaderBack: newLeader,
              eventsLeaderBack,
            };
          },
          async heal() {
            await cluster.restart(killed);
            await cluster.inSync(topics.gameVotes.name);
          },
        };
      },
    },
    {
      // The Redis primary frozen (SIGSTOP, no kill) for 5 s: commands time out
      // (REDIS_COMMAND_TIMEOUT_MS), Sentinel (down-after 1 s) may promote the replica, the old
      // primary comes back as a replica.
      name: 'redis-stop',
      fault: () => {
        let resume = () => undefined as void;
        return {
          async inject(context) {
            const port = await redis.primaryNow();
            const atMs = await context.strikeMoment();
            const at = Date.now();
            const paused = pauseListener(port);
            resume = paused.resume;
            const resumed = sleep(5_000).then(() => paused.resume());
            const promoted = until(
              async () => ((await redis.primaryNow()) !== port ? true : undefined),
              'a promotion',
            );
            promoted.catch(() => undefined);
            return {
              atMs,
              at,
              note: `SIGSTOP the Redis primary (port ${port}, pid ${paused.pid}) for 5 s; recovery: it answers again or Sentinel promoted the replica, whichever first`,
              recovered: Promise.race([resumed, promoted.then(() => undefined)]),
            };
          },
          async heal() {
            resume();
            // The group whole again for the next scenario: the old primary a replica in sync.
            await sleep(5_000);
            await redis.replicated();
          },
        };
      },
    },
    {
      // The Redis primary answers every write MISCONF for 5 s (a failed snapshot with
      // stop-writes-on-bgsave-error, as a full disk does): a directory where BGSAVE renames its
      // file, a save point, a BGSAVE; then the directory removed and the save points cleared.
      name: 'misconf',
      fault: () => {
        let heal = async () => undefined as void;
        return {
          async inject(context) {
            const port = await redis.primaryNow();
            const primary = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
            primary.on('error', () => undefined);
            await primary.connect();
            const [, dir] = (await primary.config('GET', 'dir')) as [string, string];
            const [, file] = (await primary.config('GET', 'dbfilename')) as [string, string];
            const blocker = join(dir, file);
            // A snapshot already there (a replica's full sync writes one) is put back afterwards.
            const kept = `${blocker}.faults-kept`;
            let moved = false;
            let healed: Promise<void> | undefined;
            heal = () =>
              (healed ??= (async () => {
                rmSync(blocker, { recursive: true, force: true });
                if (moved) renameSync(kept, blocker);
                await primary.config('SET', 'save', '').catch(() => undefined);
                primary.disconnect();
              })());
            const atMs = await context.strikeMoment();
            const at = Date.now();
            if (existsSync(blocker)) {
              renameSync(blocker, kept);
              moved = true;
            }
            mkdirSync(blocker);
            await primary.config('SET', 'stop-writes-on-bgsave-error', 'yes');
            await primary.config('SET', 'save', '3600 1');
            await primary.bgsave();
            const misconf = until(
              async () =>
                (await primary.set('faults:misconf', '1').then(
                  () => undefined,
                  (error: Error) => (error.message.startsWith('MISCONF') ? true : undefined),
                )) ?? undefined,
              'MISCONF',
              10_000,
            );
            const restored = misconf.then(() => sleep(5_000)).then(() => heal());
            return {
              atMs,
              at,
              note: `MISCONF on the Redis primary (port ${port}) for 5 s after it refused a write (a failed BGSAVE with stop-writes-on-bgsave-error); recovery: the save points cleared`,
              recovered: restored,
            };
          },
          heal: () => heal(),
        };
      },
    },
    {
      // Last: the killed primary is not replaced, so the group has no replica left after it.
      name: 'redis',
      fault: () => ({
        async inject(context) {
          const atMs = await context.strikeMoment();
          const at = Date.now();
          const port = await redis.killPrimary();
          const recovered = until(
            async () => ((await redis.primaryNow()) !== port ? true : undefined),
            'the promotion',
          ).then(() => undefined);
          return {
            atMs,
            at,
            note: `kill -9 the Redis primary (port ${port}); recovery: Sentinel promoted the replica`,
            recovered,
          };
        },
      }),
    },
  ];

  for (const [index, scenario] of scenarios.entries()) {
    const run = !only || only.includes(scenario.name) ? it : it.skip;
    run(
      `${scenario.name}: 0 lost, 0 doubled, 0 refused-but-counted, tally = records = acknowledged, every lost answer resolved, ≥ ${availabilityBound * 100} % of round 2 acknowledged, round 1 closed within deadline + ${closeBoundMs / 1000} s (a held close too; a broker killed: its partitions' new leaders + 4 s if later), the game played to its end`,
      async () => {
        const row = await play(scenario.name, index, scenario.fault());
        expectAcceptance(row);
        scenario.check?.(row);
      },
      300_000,
    );
  }
});

/**
 * Availability when the game ended before a round 2 opened (round 1 left one player, or none:
 * few votes got in, as when a fault covers most of the window): the share of the round-1 votes
 * tried again after the recovery and before the deadline that were acknowledged. None tried then:
 * 0, nothing shows the service came back, and the scenario fails rather than pass on nothing.
 */
function availableAfter(
  votes: Map<string, RoundVote>,
  recoveredAt: number,
  deadline: number | undefined,
): number {
  if (!Number.isFinite(recoveredAt) || deadline === undefined) return 0;
  const tried = [...votes.values()].filter((vote) =>
    vote.attempts.some((attempt) => attempt.sentAt >= recoveredAt && attempt.sentAt < deadline),
  );
  if (tried.length === 0) return 0;
  const acknowledged = tried.filter((vote) => vote.attempts.at(-1)?.answer === 'ack');
  return acknowledged.length / tried.length;
}
