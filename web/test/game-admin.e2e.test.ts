// The game screen and the admin dashboard in a real browser (Debian's chromium driven by
// playwright-core) against the bundled standalone process, as `npm start` runs it.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  artifactsDir,
  ensureChromium,
  gqlData,
  hasHorizontalOverflow,
  launchChromium,
  loginAs,
  seriousViolations,
  startStandalone,
  type Standalone,
} from './e2e-support';

let app: Standalone;
let base: string;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('game-admin');
  // The test makes its own tournaments; the demo's would crowd its lists.
  app = await startStandalone({ DEMO: 'off' });
  base = app.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function adminPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await loginAs(page, base);
  return page;
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
    const created = await gqlData<{ createTournament: { id: string } }>(
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
    const id = created.createTournament.id;
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
    expect(await hasHorizontalOverflow(page)).toBe(false);
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
