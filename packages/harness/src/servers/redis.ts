import { withLock } from '../lock';
import { infraDir } from '../paths';
import { probeRedis } from '../probes';
import { InfraError, runStep, spawnServer, waitReady } from '../process';
import { freePort } from '../ports';
import type { Run } from '../run';
import type { ServerHandle } from '../types';
import { errorMessage, findExecutable, seconds } from '../util';
import { readyOrStop, scratchDir } from './local';

const aptTimeoutMs = 15 * 60_000;

async function aptInstallRedis(logFile: string): Promise<void> {
  if (findExecutable('apt-get') === undefined || process.getuid?.() !== 0) {
    throw new InfraError(
      'redis',
      'redis-server is not installed and cannot be installed here (needs apt-get as root); ' +
        'install the Debian package redis-server',
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await runStep('apt-get', ['update'], { env, logFile, timeoutMs: aptTimeoutMs });
    await runStep('apt-get', ['install', '-y', '--no-install-recommends', 'redis-server'], {
      env,
      logFile,
      timeoutMs: aptTimeoutMs,
    });
  } catch (error) {
    throw new InfraError(
      'redis',
      `installing redis-server failed: ${errorMessage(error)}`,
      logFile,
    );
  }
}

/** The redis-server binary, installed through apt on first use. */
async function redisServerBinary(run: Run): Promise<string> {
  const found = findExecutable('redis-server');
  if (found !== undefined) return found;
  const logFile = run.logFile('redis-install');
  console.error(`harness: redis-server not found, installing it with apt-get (log: ${logFile})`);
  // apt holds its own dpkg lock; ours stops two runs from failing on it at the same time.
  await withLock(infraDir('locks', 'apt.lock'), async () => {
    if (findExecutable('redis-server') === undefined) await aptInstallRedis(logFile);
  });
  const installed = findExecutable('redis-server');
  if (installed === undefined) {
    throw new InfraError('redis', 'apt-get install finished but redis-server is missing', logFile);
  }
  return installed;
}

export async function startLocalRedis(run: Run): Promise<ServerHandle> {
  const started = Date.now();
  const binary = await redisServerBinary(run);
  const port = await freePort();
  const dir = scratchDir('redis');
  const proc = spawnServer(run, {
    name: 'redis',
    command: binary,
    // AOF as production runs it (docs/deploy.md): a Redis of `npm run stack` killed and started
    // again on its directory comes back with its games. `everysec` writes in the background and
    // costs the tests nothing measurable; no RDB snapshots.
    args: [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--daemonize', 'no'],
    ],
    cwd: dir,
    tmpDir: dir,
  });
  const url = `redis://127.0.0.1:${port}`;
  const version = await readyOrStop(
    proc,
    waitReady({ server: 'redis', timeoutMs: 30_000, proc, probe: () => probeRedis(url) }),
  );
  return {
    name: 'redis',
    url,
    description: `redis ${version} (local process, ready in ${seconds(started)}) at ${url} — log ${proc.logFile}`,
    stop: () => proc.stop(),
  };
}
