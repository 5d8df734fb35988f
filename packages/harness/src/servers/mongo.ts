import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { withLock } from '../lock';
import { infraDir, repoRoot } from '../paths';
import { freePort } from '../ports';
import { probeMongo } from '../probes';
import { InfraError, runStep, spawnServer, waitReady } from '../process';
import type { LocalProcess } from '../process';
import { createRun, type Run } from '../run';
import type { ServerHandle } from '../types';
import { errorMessage, findExecutable, seconds } from '../util';
import { readyOrStop, scratchDir } from './local';

const ferretdbVersion = '1.24.2';
const moduleDir = join(repoRoot, 'tools', 'ferretdb');
/** No PostgreSQL backend: smaller and faster to build, and only SQLite is used. */
const buildTags = 'ferretdb_no_postgresql';
const buildTimeoutMs = 30 * 60_000;

function goBinary(): string | undefined {
  return findExecutable('go', ['/usr/local/go/bin']);
}

/** The wrapper binary is named by a hash of everything that decides its content. */
function ferretdbBinaryName(): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go'])
    hash.update(readFileSync(join(moduleDir, file)));
  hash.update(buildTags);
  return `ferretdb-${hash.digest('hex').slice(0, 16)}`;
}

async function ferretdbBinary(run: Run): Promise<string> {
  const home = infraDir('ferretdb');
  const name = ferretdbBinaryName();
  const binary = join(home, name);
  if (existsSync(binary)) return binary;

  const go = goBinary();
  if (go === undefined) {
    throw new InfraError('mongo', 'neither mongod nor Go is installed; Go builds FerretDB');
  }
  const logFile = run.logFile('ferretdb-build');
  await withLock(infraDir('locks', 'ferretdb.lock'), async () => {
    if (existsSync(binary)) return;
    console.error(`harness: building FerretDB ${ferretdbVersion} with Go (log: ${logFile})`);
    mkdirSync(home, { recursive: true });
    const staging = `${binary}.tmp-${process.pid}`;
    try {
      await runStep(
        go,
        ['build', '-buildvcs=false', '-trimpath', '-tags', buildTags, '-o', staging, '.'],
        {
          cwd: moduleDir,
          env: { ...process.env, CGO_ENABLED: '0' },
          logFile,
          timeoutMs: buildTimeoutMs,
        },
      );
    } catch (error) {
      rmSync(staging, { force: true });
      throw new InfraError('mongo', `building FerretDB failed: ${errorMessage(error)}`, logFile);
    }
    renameSync(staging, binary);
    // Older builds are 30 MB each and nothing refers to them any more.
    for (const old of readdirSync(home)) {
      if (old.startsWith('ferretdb-') && old !== name) rmSync(join(home, old), { force: true });
    }
  });
  return binary;
}

interface MongoServer {
  proc: LocalProcess;
  label: string;
}

function spawnMongod(run: Run, mongod: string, port: number): MongoServer {
  const dir = scratchDir('mongod');
  const proc = spawnServer(run, {
    name: 'mongo',
    command: mongod,
    args: [
      ...['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dir],
      ...['--nounixsocket', '--quiet'],
    ],
    cwd: dir,
    tmpDir: dir,
  });
  return { proc, label: 'mongod' };
}

async function spawnFerretdb(run: Run, port: number): Promise<MongoServer> {
  const binary = await ferretdbBinary(run);
  const dir = scratchDir('ferretdb');
  const proc = spawnServer(run, {
    name: 'mongo',
    command: binary,
    args: ['--listen-addr', `127.0.0.1:${port}`, '--state-dir', dir],
    cwd: dir,
    tmpDir: dir,
  });
  return { proc, label: `FerretDB ${ferretdbVersion}, SQLite backend,` };
}

/** A real mongod where one is installed, FerretDB otherwise. */
export async function startLocalMongo(run: Run): Promise<ServerHandle> {
  const started = Date.now();
  const port = await freePort();
  const mongod = findExecutable('mongod');
  const server =
    mongod !== undefined ? spawnMongod(run, mongod, port) : await spawnFerretdb(run, port);
  const url = `mongodb://127.0.0.1:${port}`;
  const version = await readyOrStop(
    server.proc,
    waitReady({
      server: 'mongo',
      timeoutMs: 60_000,
      proc: server.proc,
      probe: () => probeMongo(url),
    }),
  );
  return {
    name: 'mongo',
    url,
    description:
      `mongo ${version} wire protocol (${server.label} local process, ready in ${seconds(started)})` +
      ` at ${url} — log ${server.proc.logFile}`,
    stop: () => server.proc.stop(),
  };
}

/**
 * A MongoDB-wire server of a test's own (mongod where installed, FerretDB otherwise), for a test
 * that stops or stalls it: the shared one (`testInfra().mongoUrl`) serves every other test
 * running at the same time (the fault suite's `mongo-at-end` SIGSTOPs its store for 20 s).
 */
export function startOwnMongo(): Promise<ServerHandle> {
  return startLocalMongo(createRun());
}
