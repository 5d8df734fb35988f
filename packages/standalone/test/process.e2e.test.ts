import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const bundle = join(__dirname, '..', 'dist', 'main.js');

/** What `npm start` runs after building: the bundled standalone process. */
describe('the standalone process', () => {
  it('serves /healthz with 200 and exits cleanly with status 0 on Ctrl-C (SIGINT)', async () => {
    if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
    const child = spawn(process.execPath, [bundle], {
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no 'listening' line in:\n${output}`)),
        20_000,
      );
      child.stdout.on('data', () => {
        const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"stopped"');
    expect(output).not.toContain('failed to stop');
  });
});
