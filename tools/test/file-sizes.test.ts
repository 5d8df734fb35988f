import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * The house rule on file size (docs/contributing.md, issue 40 point 3): a source file stays under
 * 400 lines, cut along its seams when it grows, and
 * one over 300 says at its top why it is not cut — a line `Over 300 lines: …` in its first lines.
 * Generated code, tests and the translation tables (one table per language) are not source here.
 */
const exempt = [/^proto\/gen\//, /^web\/src\/gql\//, /\/test\//, /\.test\.tsx?$/, /\/i18n\//];

function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mjs', '*.cjs', '*.js'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((path) => path !== '' && !exempt.some((pattern) => pattern.test(path)));
}

describe('the size of source files', () => {
  const sizes = sourceFiles().map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return { path, text, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) };
  });

  it('finds the sources to measure', () => {
    expect(sizes.length).toBeGreaterThan(300);
  });

  it('keeps every source file at 400 lines or fewer', () => {
    expect(
      sizes.filter(({ lines }) => lines > 400).map(({ path, lines }) => `${path} ${lines}`),
    ).toEqual([]);
  });

  it('says at the top of every file over 300 lines why it is not cut', () => {
    const unexplained = sizes
      .filter(({ lines }) => lines > 300)
      .filter(({ text }) => !/Over 300 lines: \S/.test(text.split('\n').slice(0, 12).join('\n')))
      .map(({ path, lines }) => `${path} ${lines}`);
    expect(unexplained).toEqual([]);
  });
});
