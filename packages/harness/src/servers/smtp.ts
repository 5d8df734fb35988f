import { join } from 'node:path';
import { freePort } from '../ports';
import { probeHttp, probeSmtp } from '../probes';
import { InfraError, spawnServer, waitReady } from '../process';
import type { Run } from '../run';
import type { ServerHandle } from '../types';
import { errorMessage, seconds } from '../util';
import { readyOrStop } from './local';

const sinkEntry = join(__dirname, '..', 'smtp-sink', 'main.ts');

/** tsx's CommonJS hook lets node run the TypeScript entry without a build or a second process. */
function tsxRegister(): string {
  try {
    return require.resolve('tsx/cjs');
  } catch (error) {
    throw new InfraError('smtp', `tsx is not installed in the workspace: ${errorMessage(error)}`);
  }
}

export async function startLocalSmtpSink(run: Run): Promise<ServerHandle> {
  const started = Date.now();
  const smtpPort = await freePort();
  const httpPort = await freePort();
  const proc = spawnServer(run, {
    name: 'smtp',
    command: process.execPath,
    args: [
      ...['--require', tsxRegister(), sinkEntry],
      ...['--smtp-port', String(smtpPort), '--http-port', String(httpPort)],
    ],
  });
  const url = `smtp://127.0.0.1:${smtpPort}`;
  const apiUrl = `http://127.0.0.1:${httpPort}`;
  await readyOrStop(
    proc,
    waitReady({
      server: 'smtp',
      timeoutMs: 30_000,
      proc,
      probe: async () => {
        await probeHttp(`${apiUrl}/health`);
        await probeSmtp('127.0.0.1', smtpPort);
      },
    }),
  );
  return {
    name: 'smtp',
    url,
    apiUrl,
    description: `smtp sink (smtp-server, local node process, ready in ${seconds(started)}) at ${url}, messages at ${apiUrl}/messages — log ${proc.logFile}`,
    stop: () => proc.stop(),
  };
}
