// The game screen and the admin dashboard in a real browser (Debian's chromium driven by
// playwright-core) against the bundled standalone process, as `npm start` runs it.
import { join } from 'node:path';
import type { APIRequestContext, Browser, BrowserContext, Page } from 'playwright-core';
import {
  ADMIN,
  DESKTOP,
  PHONE,
  artifactsDir,
  ensureChromium,
  gqlData,
  hasHorizontalOverflow,
  launchChromium,
  loginAs,
  rest,
  seriousViolations,
  settled,
  shootBothWidths,
  startStandalone,
  type Standalone,
  documentedClient,
  verifiedUser,
  type DocumentedClient,
  castVote,
  tournamentFinished,
  votingIn as votingInRound,
  type VotingRound,
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

/**
 * An admin's page that asks for reduced motion, which the app honours (antd's motion off), so a
 * validation message appears at once instead of growing from zero height. With motion, the ad
 * dialog's first message twice failed to become visible within the wait in whole-file runs
 * (and showed in others); a stuck motion is the suspected, not proven, cause.
 */
async function adminPage(): Promise<Page> {
  const page = await browser.newPage({ viewport: DESKTOP, reducedMotion: 'reduce' });
  await loginAs(page, base);
  return page;
}

/**
 * The open dialog: no serious or critical axe violation, no horizontal overflow at 360 px, and a
 * screenshot at 1280 and 360 px. Viewport shots: a dialog is fixed, so a full-page shot of a
 * scrolled page would draw it (and the sticky header) out of place.
 */
async function checkDialog(page: Page, name: string): Promise<void> {
  await settled(page);
  // The dialog alone: the page behind its mask is checked by checkDashboard (axe would measure
  // the dimmed text's contrast through the mask).
  expect(await seriousViolations(page, ['.app-header', '.admin-page', '.tab-bar'])).toEqual([]);
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await settled(page);
    await page.screenshot({ path: join(shots, `${name}-${size.width}.png`) });
  }
  expect(await hasHorizontalOverflow(page)).toBe(false);
  await page.setViewportSize(DESKTOP);
}

/** The dashboard itself: axe, full-page screenshots at both widths, no overflow at 360 px. */
async function checkDashboard(page: Page, name: string): Promise<void> {
  await settled(page);
  expect(await seriousViolations(page)).toEqual([]);
  // From the top, so the sticky header is drawn where it belongs in the full-page shots.
  await page.evaluate(() => window.scrollTo(0, 0));
  const { overflowAt360 } = await shootBothWidths(page, shots, name, () => settled(page));
  expect(overflowAt360).toBe(false);
}

/** The documented client of this test's app. */
const apiOf = (api: APIRequestContext, deviceId: string) => documentedClient(api, base, deviceId);
type Api = DocumentedClient;

describe('the admin dashboard in the browser', () => {
  it('sends a visitor away from /admin to /', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/admin`);
    await page.waitForURL(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.close();
  }, 30_000);

  it('sends a signed-in, verified user who is not an admin away from /admin to /', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await verifiedUser(apiOf(context.request, 'e2e-user'), 'Uma');
    await page.goto(`${base}/admin`);
    await page.waitForURL(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/');
    // Signed in (the header's name badge), yet no dashboard.
    await page.locator('.app-header').getByText('Uma').first().waitFor();
    expect(await page.getByText('Admin Dashboard').count()).toBe(0);
    await context.close();
  }, 30_000);

  it('loads the admin chunk only on /admin, not on / even for an admin', async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    const adminChunk = /^\/assets\/AdminPage-[\w-]+\.js$/;
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await loginAs(page, base);
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Upcoming Tournaments' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(requested.some((path) => path.startsWith('/assets/'))).toBe(true);
    expect(requested.filter((path) => adminChunk.test(path))).toEqual([]);
    await page.goto(`${base}/admin`);
    await page.getByText('Admin Dashboard').waitFor();
    expect(requested.filter((path) => adminChunk.test(path))).toHaveLength(1);
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
    await page.fill('#t-start', '');
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await dialog.getByText('Title is required').waitFor();
    await dialog.getByText('Start time is required').waitFor();
    await page.fill('#t-title', 'E2E Cup');
    await page.fill('#t-start', '2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await dialog.getByText('Start time must be in the future').waitFor();
    await dialog.getByText('Title is required').waitFor({ state: 'hidden' });
    await checkDialog(page, 'admin-tournament-create');
    await page.fill('#t-start', '2099-01-01T10:00');
    await page.fill('#t-prize', '$5,000');
    await dialog.getByRole('button', { name: 'Create Tournament' }).click();
    await page.getByText('Tournament created successfully.').waitFor();
    const row = page.locator('[data-testid^="tournament-"]', { hasText: 'E2E Cup' });
    await row.getByText('$5,000').waitFor();
    await row.getByText('upcoming', { exact: true }).waitFor();
    await checkDashboard(page, 'admin-dashboard-tournament');
    await page.getByRole('button', { name: 'Edit E2E Cup' }).click();
    await page.getByRole('dialog').getByText('Edit Tournament').waitFor();
    await checkDialog(page, 'admin-tournament-edit');
    await page.fill('#t-title', 'E2E Cup Edited');
    await page.fill('#t-prize', '');
    await page.getByRole('dialog').getByRole('button', { name: 'Update Tournament' }).click();
    await page.getByText('Tournament updated successfully.').waitFor();
    await page
      .locator('[data-testid^="tournament-"]', { hasText: 'E2E Cup Edited' })
      .getByText('No prize')
      .waitFor();
    await page.getByRole('button', { name: 'Delete E2E Cup Edited' }).click();
    await page
      .locator('.ant-modal-confirm-title', {
        hasText: 'Are you sure you want to delete "E2E Cup Edited"?',
      })
      .waitFor();
    await checkDialog(page, 'admin-delete-confirm');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Tournament deleted successfully.').waitFor();
    await page
      .getByText('No tournaments found. Create your first tournament to get started.')
      .waitFor();
    await page.close();
  }, 60_000);

  it('creates, edits and deletes an advertisement, with the validation and success messages', async () => {
    const page = await adminPage();
    await page.goto(`${base}/admin`);
    await page
      .getByText('No advertisements found. Create your first advertisement to get started.')
      .waitFor();
    await page.getByRole('button', { name: 'Create Advertisement' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Create New Advertisement').waitFor();
    // isActive is only in the edit form (spec §4).
    expect(await dialog.getByRole('checkbox').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await dialog.getByText('Title is required').waitFor();
    await dialog.getByText('Content is required').waitFor();
    await page.fill('#a-title', 'E2E Ad');
    await page.fill('#a-content', 'x'.repeat(120));
    await page.fill('#a-duration', '61');
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await dialog.getByText('Duration must be between 1 and 60 seconds').waitFor();
    await dialog.getByText('Title is required').waitFor({ state: 'hidden' });
    await checkDialog(page, 'admin-ad-create');
    await page.fill('#a-duration', '0');
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await dialog.getByText('Duration must be between 1 and 60 seconds').waitFor();
    await page.fill('#a-duration', '3');
    await dialog.getByRole('button', { name: 'Create Advertisement' }).click();
    await page.getByText('Advertisement created successfully.').waitFor();
    const row = page.locator('[data-testid^="ad-"]', { hasText: 'E2E Ad' });
    await row.getByText(`${'x'.repeat(100)}...`).waitFor();
    await row.getByText('between rounds').waitFor();
    await row.getByText('3s', { exact: true }).waitFor();
    await row.getByText('Active', { exact: true }).waitFor();
    await checkDashboard(page, 'admin-dashboard');
    await page.getByRole('button', { name: 'Edit E2E Ad' }).click();
    await page.getByRole('dialog').getByText('Edit Advertisement').waitFor();
    await checkDialog(page, 'admin-ad-edit');
    await page.getByRole('dialog').getByRole('checkbox').uncheck();
    await page.getByRole('dialog').getByRole('button', { name: 'Update Advertisement' }).click();
    await page.getByText('Advertisement updated successfully.').waitFor();
    await row.getByText('Inactive', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete E2E Ad' }).click();
    await page
      .locator('.ant-modal-confirm-title', {
        hasText: 'Are you sure you want to delete "E2E Ad"?',
      })
      .waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Advertisement deleted successfully.').waitFor();
    await page
      .getByText('No advertisements found. Create your first advertisement to get started.')
      .waitFor();
    await page.close();
  }, 60_000);

  it('shows the pending labels, then the failure messages when the server refuses a create', async () => {
    const page = await adminPage();
    // The server's answer to each create is held until the test has seen the pending label
    // (the marker), then it is an error.
    const held: Array<() => void> = [];
    let answered = 0;
    // Lets the next create through (or the one being held), whichever reached the route first.
    const answer = () => {
      const next = held.shift();
      if (next) next();
      else answered += 1;
    };
    await page.route('**/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (!/CreateTournament|CreateAdvertisement/.test(body)) return route.continue();
      if (answered > 0) answered -= 1;
      else await new Promise<void>((resolve) => held.push(resolve));
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ errors: [{ message: 'refused', extensions: { code: 'E2E' } }] }),
      });
    });
    await page.goto(`${base}/admin`);
    await page.getByRole('button', { name: 'Create Tournament' }).click();
    await page.fill('#t-title', 'Refused Cup');
    await page.getByRole('dialog').getByRole('button', { name: 'Create Tournament' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Creating...' }).waitFor();
    answer();
    await page.getByText('Failed to create tournament.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Create Advertisement' }).click();
    await page.fill('#a-title', 'Refused Ad');
    await page.fill('#a-content', 'refused');
    await page.getByRole('dialog').getByRole('button', { name: 'Create Advertisement' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Creating...' }).waitFor();
    answer();
    await page.getByText('Failed to create advertisement.').waitFor();
    await page.close();
  }, 60_000);
});

const PLAYED_TITLE = 'Details Cup';

interface PlayedGame {
  id: string;
  /** ann and bob go out in round 1, dan in round 2; cat wins. */
  players: Record<'ann' | 'bob' | 'cat' | 'dan', string>;
}

/**
 * A two-round game played through GraphQL by four verified players on their own devices:
 * round 1 ann and bob pick option 1, cat option 2, dan option 3 (the two single votes are the
 * least popular: cat and dan advance); round 2 only cat votes, so dan goes out and cat wins.
 */
async function playGame(): Promise<PlayedGame> {
  const contexts = await Promise.all([0, 1, 2, 3, 4].map(() => browser.newContext()));
  try {
    const [adminContext, ...playerContexts] = contexts as [BrowserContext, ...BrowserContext[]];
    const admin = apiOf(adminContext.request, 'e2e-played-admin');
    await admin.graphql('mutation($e:String!,$p:String!){login(email:$e,password:$p){id}}', {
      e: ADMIN.email,
      p: ADMIN.password,
    });
    const names = ['ann', 'bob', 'cat', 'dan'] as const;
    const apis = playerContexts.map((context, i) => apiOf(context.request, `e2e-${names[i]}`));
    const usernames: string[] = [];
    for (const [i, api] of apis.entries())
      usernames.push((await verifiedUser(api, names[i]!)).username);
    const [ann, bob, cat, dan] = apis as [Api, Api, Api, Api];
    const { createTournament } = await admin.graphql<{ createTournament: { id: string } }>(
      'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
      {
        i: {
          title: PLAYED_TITLE,
          prize: '$50',
          startAt: new Date(Date.now() + 3_000).toISOString(),
          roundTimeSeconds: 5,
        },
      },
    );
    const id = createTournament.id;
    for (const api of apis) {
      await api.graphql('mutation($id:ID!){joinTournament(tournamentId:$id){isParticipant}}', {
        id,
      });
    }
    const votingIn = (roundNumber: number) => votingInRound(admin, id, roundNumber);
    const vote = (api: Api, roundNumber: number, imageId: string) =>
      castVote(api, id, roundNumber, imageId);
    const round1 = await votingIn(1);
    const image = (round: VotingRound, option: number) => round.images[option]!.id;
    await vote(ann, 1, image(round1, 0));
    await vote(bob, 1, image(round1, 0));
    await vote(cat, 1, image(round1, 1));
    await vote(dan, 1, image(round1, 2));
    const round2 = await votingIn(2);
    await vote(cat, 2, image(round2, 0));
    await tournamentFinished(admin, id, `${PLAYED_TITLE} finished`, 60_000);
    const [a, b, c, d] = usernames as [string, string, string, string];
    return { id, players: { ann: a, bob: b, cat: c, dan: d } };
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
}

/** Started by the game-screen suite so it plays while the watch test runs. */
let played: Promise<PlayedGame> | undefined;

describe('the game screen in the browser', () => {
  beforeAll(() => {
    played = playGame();
    // Awaited (and its failure reported) by the details test below.
    played.catch(() => undefined);
  });

  it('watches a game from its lobby through a round to its end, then shows its statistics', async () => {
    const admin = await adminPage();
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    const created = await gqlData<{ createTournament: { id: string } }>(
      admin,
      'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
      {
        i: {
          title: 'Watch Cup',
          prize: '$10',
          // The lobby must outlast one page load on a loaded CI machine (6 s did not).
          startAt: new Date(Date.now() + 12_000).toISOString(),
          roundTimeSeconds: 5,
        },
      },
    );
    const id = created.createTournament.id;
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

interface DetailsJson {
  winner: { username: string } | null;
  totalPlayers: number;
  rounds: {
    roundNumber: number;
    images: { id: string; alt: string }[];
    votes: { username: string; imageId: string; isOfflinePlayer: boolean }[];
    eliminatedPlayers: { username: string; isOfflinePlayer: boolean }[];
  }[];
}

describe('the admin dashboard after a played game', () => {
  it('shows every round with its votes and eliminated players, the survival chart and the vote split, as GET /api/admin/tournaments/{id}/details has them', async () => {
    if (!played) throw new Error('the game-screen suite did not start the played game');
    const game = await played;
    const { ann, bob, cat, dan } = game.players;
    const page = await adminPage();
    await page.goto(`${base}/admin`);
    const row = page.getByTestId(`history-${game.id}`);
    await row.getByText(`Winner: ${cat}`).waitFor();
    await row.getByText('$50').waitFor();
    await row.getByText('Finished', { exact: true }).waitFor();
    await checkDashboard(page, 'admin-dashboard-history');

    // The REST answer, asked as the web app asks (X-Device-ID, no Content-Type without a body).
    const answer = await rest<DetailsJson>(
      page,
      'GET',
      `/api/admin/tournaments/${game.id}/details`,
    );
    expect(answer.status).toBe(200);
    const details = answer.body;
    // It is the game that was played.
    expect(details.winner?.username).toBe(cat);
    expect(details.totalPlayers).toBe(4);
    expect(details.rounds.map((r) => r.roundNumber)).toEqual([1, 2]);
    expect(details.rounds.map((r) => r.votes.length)).toEqual([4, 1]);
    expect(details.rounds.map((r) => r.eliminatedPlayers.map((p) => p.username).sort())).toEqual([
      [ann, bob].sort(),
      [dan],
    ]);

    await page.getByRole('button', { name: `View Details of ${PLAYED_TITLE}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Round-by-Round History').waitFor();
    await dialog.getByText(`Tournament: ${PLAYED_TITLE}`, { exact: true }).waitFor();
    await dialog.getByText(`Winner: ${details.winner?.username}`, { exact: true }).waitFor();
    await dialog.getByText('Prize: $50', { exact: true }).waitFor();
    expect(await dialog.getByTestId('details-players').textContent()).toBe(
      String(details.totalPlayers),
    );
    expect(await dialog.locator('section.details-round').count()).toBe(details.rounds.length);
    let remaining = details.totalPlayers;
    const survival = [remaining];
    for (const round of details.rounds) {
      const section = dialog.locator(`section.details-round[data-round="${round.roundNumber}"]`);
      await section.getByText(`Round ${round.roundNumber} · ${round.votes.length} votes`).waitFor();
      for (const [i, image] of round.images.entries()) {
        await section.getByText(`Option ${i + 1}: ${image.id} (${image.alt})`).waitFor();
      }
      const voteRows = section.locator('.ant-list-item');
      expect(await voteRows.count()).toBe(round.votes.length);
      for (const vote of round.votes) {
        const option = round.images.findIndex((image) => image.id === vote.imageId) + 1;
        const voteRow = voteRows.filter({ hasText: vote.username });
        await voteRow.getByText(`Option ${option}`, { exact: true }).waitFor();
        await voteRow.getByText(vote.isOfflinePlayer ? 'آفلاین' : 'آنلاین').waitFor();
      }
      const eliminated = section.locator('.details-eliminated');
      for (const player of round.eliminatedPlayers) {
        await eliminated.getByText(player.username, { exact: true }).waitFor();
      }
      remaining -= round.eliminatedPlayers.length;
      survival.push(remaining);

      // The chart's table row and vote split for the round.
      const chartRow = dialog.locator(`.survival-table tr[data-round="${round.roundNumber}"]`);
      expect(await chartRow.locator('td').allTextContents()).toEqual([
        String(round.roundNumber),
        String(round.votes.length),
        String(remaining),
        '',
      ]);
      const split = round.images.map(
        (image) => round.votes.filter((vote) => vote.imageId === image.id).length,
      );
      expect(await chartRow.locator('.split-bar').getAttribute('aria-label')).toBe(
        `Option votes: ${split.join(', ')}`,
      );
    }
    expect(survival).toEqual([4, 2, 1]);
    expect(await dialog.locator('.survival-chart svg').getAttribute('aria-label')).toBe(
      `Players remaining: ${survival.join(', ')}`,
    );
    await checkDialog(page, 'admin-details');
    await page.close();
  }, 90_000);
});
