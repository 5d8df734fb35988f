import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const generator = join(root, 'tools', 'docs', 'generate.ts');
const check = () => spawnSync(tsx, [generator, '--check'], { cwd: root, encoding: 'utf8' });

describe('the docs tables printed from their sources (tools/docs/generate.ts)', () => {
  it('are up to date: docs/api-ws.md from the real-time messages, docs/events.md from the proto (run `tsx tools/docs/generate.ts`)', () => {
    const result = check();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
