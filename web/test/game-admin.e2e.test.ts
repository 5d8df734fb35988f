// The game screen and the admin dashboard in a real browser (Debian's chromium driven by
// playwright-core) against the bundled standalone process, as `npm start` runs it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const bundle = join(__dirname, '..', '..', 'packages', 'standalone', 'dist', 'main.js');
const shots = join(__dirname, '..', 'test-artifacts', 'game-admin');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const chromiumPath = '/usr/bin/chromium';

/** Debian's chromium, installed with apt when missing; fails loudly when it cannot be had. */
function ensureChromium(): void {
  if (existsSync(chromiumPath)) return;
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit' });
  if (!existsSync(chromiumPath))
    throw new Error(`chromium is not at ${chromiumPath} after apt-get`);
}
const ADMIN = { email: 'admin@e2e.local', password: 'adminpass123' };

let child: ChildProcess;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
  ensureChromium();
  mkdirSync(shots, { recursive: true });
  child = spawn(process.execPath, [bundle], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // The test makes its own tournaments; the demo's would crowd its lists.
      DEMO: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'listening' line in:\n${output}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  child?.kill('SIGINT');
});

async function gql<T>(
  page: Page,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  return page.evaluate(
    async ([q, v]) => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Device-ID': 'e2e-game-admin' },
        body: JSON.stringify({ query: q, variables: v }),
      });
      return (await response.json()) as never;
    },
    [query, variables] as const,
  );
}

async function adminPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/`);
  await gql(page, 'mutation($e:String!,$p:String!){login(email:$e,password:$p){id}}', {
    e: ADMIN.email,
    p: ADMIN.password,
  });
  return page;
}

async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, so the app's CSP (script-src 'self') stays enforced.
  await page.evaluate(axeSource);
  const ids = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: unknown): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    // The shared app header is the shell's (checked by its own suite); these are the screens.
    const result = await axe.run({ exclude: [['.app-header']] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return ids;
}

describe('the admin dashboard in the browser', () => {
  it('sends a visitor away from /admin to /', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/admin`);
    await page.waitForURL(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.close();
  }, 30_000);

  it('creates, edits and deletes a tournament, with the validation and success messages', async () => {
    const page = await adminPage();
    await page.goto(`${base}/admin`);
    await page
      .getByText('No tournaments found. Create your first tournament to get started.')
      .waitFor();
    await page.getByRole('button', { name: 'Create Tournament' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Create New Tournament').waitFor();
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await dialog.getByText('Title is required').waitFor();
    await page.fill('#t-title', 'E2E Cup');
    await page.fill('#t-start', '2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await dialog.getByText('Start time must be in the future').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'admin-create-tournament.png') });
    await page.fill('#t-start', '2099-01-01T10:00');
    await page.fill('#t-prize', '$5,000');
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await page.getByText('Tournament created successfully.').waitFor();
    await page.getByRole('button', { name: 'Edit E2E Cup' }).click();
    await page.getByRole('dialog').getByText('Edit Tournament').waitFor();
    await page.fill('#t-title', 'E2E Cup Edited');
    await page.getByRole('dialog').getByRole('button', { name: 'Update Tournament' }).click();
    await page.getByText('Tournament updated successfully.').waitFor();
    await page.getByRole('button', { name: 'Delete E2E Cup Edited' }).click();
    await page
      .locator('.ant-modal-confirm-title', {
        hasText: 'Are you sure you want to delete "E2E Cup Edited"?',
      })
      .waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Tournament deleted successfully.').waitFor();
    await page
      .getByText('No tournaments found. Create your first tournament to get started.')
      .waitFor();
    await page.close();
  }, 60_000);

  it('creates, edits and deletes an advertisement, refusing a 61-second duration', async () => {
    const page = await adminPage();
    await page.goto(`${base}/admin`);
    await page
      .getByText('No advertisements found. Create your first advertisement to get started.')
      .waitFor();
    await page.getByRole('button', { name: 'Create Advertisement' }).click();
    const dialog = page.getByRole('dialog');
    await page.fill('#a-title', 'E2E Ad');
    await page.fill('#a-content', 'x'.repeat(120));
    await page.fill('#a-duration', '61');
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await dialog.getByText('Duration must be between 1 and 60 seconds').waitFor();
    await page.fill('#a-duration', '3');
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await page.getByText('Advertisement created successfully.').waitFor();
    await page.getByText(`${'x'.repeat(100)}...`).waitFor();
    await page.locator('[data-testid^="ad-"]').getByText('between rounds').waitFor();
    await page.getByRole('button', { name: 'Edit E2E Ad' }).click();
    await page.getByRole('dialog').getByText('Edit Advertisement').waitFor();
    await page.getByRole('dialog').getByRole('checkbox').uncheck();
    await page.getByRole('dialog').getByRole('button', { name: 'Update Advertisement' }).click();
    await page.getByText('Advertisement updated successfully.').waitFor();
    await page.getByText('Inactive', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete E2E Ad' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Advertisement deleted successfully.').waitFor();
    await page.close();
  }, 60_000);
});

describe('the game screen in the browser', () => {
  it('watches a game from its lobby through a round to its end, then shows its statistics', async () => {
    const admin = await adminPage();
    const created = await gql<{ data: { createTournament: { id: string } } }>(
      admin,
      'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
      {
        i: {
          title: 'Watch Cup',
          prize: '$10',
          startAt: new Date(Date.now() + 6_000).toISOString(),
          roundTimeSeconds: 5,
        },
      },
    );
    const id = created.data.createTournament.id;
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    await page.goto(`${base}/game/${id}?mode=watch`);
    await page.getByText('Watching Tournament').waitFor();
    await page.getByText('Waiting for game to start...').waitFor();
    await page.getByText('Watch Mode').waitFor();
    await page.getByText('Choose the LEAST Popular Option!').waitFor({ timeout: 30_000 });
    await page.getByText('Login required to participate - you can only watch').waitFor();
    expect(await page.locator('.image-option').count()).toBe(4);
    expect(await page.locator('.image-option:enabled').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'game-round-360.png'), fullPage: true });
    await page.getByText('Tournament Complete!').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(shots, 'game-finished-360.png'), fullPage: true });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth > window.innerWidth,
    );
    expect(overflow).toBe(false);
    await page.goto(`${base}/game/${id}?mode=results`);
    await page.getByText('COMPLETED', { exact: true }).waitFor();
    await page.getByText('Rounds completed in this tournament').waitFor();
    await page.screenshot({ path: join(shots, 'game-results-360.png'), fullPage: true });
    await page.close();
    await admin.close();
  }, 120_000);

  it('denies offline mode to a visitor', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/game/some-id?mode=offline`);
    await page.getByText('Offline Mode Access Denied').waitFor();
    await page
      .getByText(
        'You must be logged in to participate in offline mode and save your tournament choices.',
      )
      .waitFor();
    await page.getByRole('button', { name: 'Login to Continue' }).waitFor();
    await page.close();
  }, 30_000);
});
