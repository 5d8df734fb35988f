import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

describe('generated GraphQL code', () => {
  it('matches the gateway schema and the operations (run `pnpm --filter @underdog/web codegen`)', () => {
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const result = spawnSync(tsx, [join(root, 'web', 'scripts', 'codegen.ts'), '--check'], {
      cwd: join(root, 'web'),
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
