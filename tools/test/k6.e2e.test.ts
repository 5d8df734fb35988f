import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const scripts = join(root, 'load', 'k6');
const bundle = join(root, 'apps', 'standalone', 'dist', 'main.js');
const admin = { email: 'admin@k6.test', password: 'admin-pass-1' };

interface Summary {
  metrics: Record<string, Record<string, number>>;
}

/**
 * The k6 scripts of load/k6 against the bundled standalone process with a handful of players, so
 * they cannot rot: they load (`k6 inspect`), and a tiny run plays one round in which every vote
 * is acknowledged and counted. Thresholds are loosened to minutes: this checks behaviour, the
 * figures belong to docs/benchmarks.md.
 */
describe('the k6 load scripts', () => {
  let k6: string;
  let standalone: ChildProcess | undefined;
  let target: string;
  let output = '';
  const workDir = mkdtempSync(join(tmpdir(), 'underdog-k6-'));

  beforeAll(async () => {
    if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
    // Built once from the Go module proxy, then cached (first run: about two minutes).
    k6 = (await run(join(root, 'tools', 'k6', 'ensure-k6.sh'), { timeout: 600_000 })).stdout.trim();
    standalone = spawn(process.execPath, [bundle], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DEMO: 'off',
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        RATE_LIMIT_REGISTRATIONS_PER_IP: '1000',
        RATE_LIMIT_VERIFICATIONS_PER_IP: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    standalone.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    standalone.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    target = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no 'listening' line in:\n${output}`)),
        30_000,
      );
      standalone!.stdout!.on('data', () => {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
  }, 660_000);

  afterAll(async () => {
    if (!standalone || standalone.exitCode !== null) return;
    const exited = new Promise((resolve) => standalone!.on('exit', resolve));
    standalone.kill('SIGINT');
    await exited;
  });

  /** `k6 run` with these variables; the summary it exported. Fails with k6's output otherwise. */
  async function k6Run(script: string, env: Record<string, string>): Promise<Summary> {
    const summaryPath = join(workDir, `${script}-${Date.now()}.json`);
    const args = ['run', '--quiet', '--no-color', '--summary-export', summaryPath];
    for (const [name, value] of Object.entries({ TARGET: target, ...env })) {
      args.push('-e', `${name}=${value}`);
    }
    try {
      await run(k6, [...args, script], { cwd: scripts, timeout: 180_000, maxBuffer: 16 << 20 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`k6 run ${script} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
    }
    return JSON.parse(readFileSync(summaryPath, 'utf8')) as Summary;
  }

  /** An upcoming tournament, created over REST by the admin as the web app would. */
  async function createTournament(): Promise<string> {
    const headers = { 'content-type': 'application/json', 'x-device-id': 'k6-test-admin' };
    const login = await fetch(`${target}/api/login`, {
      method: 'POST',
      headers,
      body: JSON.stringify(admin),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const created = await fetch(`${target}/api/tournaments`, {
      method: 'POST',
      headers: { ...headers, cookie },
      body: JSON.stringify({
        title: 'Watched Cup',
        startAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { id: string }).id;
  }

  const live = (players: number) => ({
    N: String(players),
    SOCKETS_PER_VU: '2',
    RAMP: '1',
    START_MARGIN: '3',
    ROUND_SECONDS: '5',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    // Behaviour, not speed: thresholds that only a broken run crosses.
    ACK_P99_MS: '60000',
    FANOUT_P95_MS: '60000',
  });

  it.each(['live-ws.js', 'live-graphql.js', 'watch.js', 'browse.js', 'seed-players.js'])(
    'k6 inspect loads %s with its scenarios',
    async (script) => {
      const { stdout } = await run(k6, ['inspect', script], { cwd: scripts });
      const options = JSON.parse(stdout) as {
        scenarios: Record<string, unknown> | null;
        iterations: number | null;
      };
      if (script === 'seed-players.js') expect(options.iterations).toBe(1);
      else {
        const scenario: Record<string, string> = { 'browse.js': 'browse', 'watch.js': 'watchers' };
        expect(Object.keys(options.scenarios ?? {})).toEqual([scenario[script] ?? 'players']);
      }
    },
  );

  it.each(['live-ws.js', 'live-graphql.js'])(
    '%s plays one round with 4 players: every vote acknowledged, counted, and every player gets the results',
    async (script) => {
      const summary = await k6Run(script, live(4));
      expect(summary.metrics.votes_sent?.count).toBe(4);
      expect(summary.metrics.votes_acked?.count).toBe(4);
      expect(summary.metrics.vote_failed?.value).toBe(0);
      // Each player read the round's total from its results: all 4 acknowledged votes counted.
      expect(summary.metrics.round_total_votes).toMatchObject({ min: 4, max: 4, count: 4 });
      expect(summary.metrics.results_fanout_ms?.count).toBe(4);
      expect(summary.metrics.results_missed?.value).toBe(0);
      expect(summary.metrics.ws_connect_failed?.value).toBe(0);
    },
    120_000,
  );

  it('seed-players.js writes verified accounts that live-ws.js logs in with PLAYERS_FILE, joining by a first vote', async () => {
    const playersFile = join(workDir, 'players.json');
    await k6Run('seed-players.js', { N: '3', PLAYERS_OUT: playersFile });
    const accounts = JSON.parse(readFileSync(playersFile, 'utf8')) as Array<{ email: string }>;
    expect(accounts).toHaveLength(3);

    const summary = await k6Run('live-ws.js', {
      ...live(3),
      PLAYERS_FILE: playersFile,
      JOIN: 'vote',
    });
    expect(summary.metrics.votes_acked?.count).toBe(3);
    expect(summary.metrics.round_total_votes).toMatchObject({ min: 3, max: 3 });
  }, 120_000);

  it.each(['ws', 'graphql-ws'])(
    'watch.js holds visitor sockets on a tournament over %s: each gets its snapshot',
    async (protocol) => {
      const tournamentId = await createTournament();
      const summary = await k6Run('watch.js', {
        TOURNAMENT_ID: tournamentId,
        N: '3',
        RAMP: '1',
        DURATION: '2',
        PROTOCOL: protocol,
      });
      expect(summary.metrics.ws_connect_failed?.value).toBe(0);
      // Each socket's subscription answered with the game's snapshot (game_state_update on /ws,
      // GameSnapshot on graphql-ws); list changes of other tournaments may come on top.
      expect(summary.metrics.snapshots?.count).toBe(3);
      expect(summary.metrics.game_messages?.count).toBeGreaterThanOrEqual(3);
    },
    60_000,
  );

  it('browse.js reads the list, statistics and server time without errors', async () => {
    const summary = await k6Run('browse.js', { N: '2', RAMP: '1', DURATION: '3', THINK: '0.2' });
    expect(summary.metrics.http_req_failed?.value).toBe(0);
    expect(summary.metrics.checks?.fails).toBe(0);
    expect(summary.metrics.checks?.passes).toBeGreaterThanOrEqual(6);
  }, 60_000);

  it('refuses a non-loopback TARGET unless CLUSTER=1', async () => {
    const refused = run(k6, ['inspect', '-e', 'TARGET=http://192.0.2.10:8080', 'browse.js'], {
      cwd: scripts,
    });
    await expect(refused).rejects.toMatchObject({
      stderr: expect.stringContaining('set CLUSTER=1'),
    });
    const { stdout } = await run(
      k6,
      ['inspect', '-e', 'TARGET=http://192.0.2.10:8080', '-e', 'CLUSTER=1', 'browse.js'],
      { cwd: scripts },
    );
    expect(JSON.parse(stdout)).toHaveProperty('scenarios.browse');
  });
});
