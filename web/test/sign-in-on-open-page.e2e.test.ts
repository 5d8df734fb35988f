// Issue 34: whoever signs in on a page that is already open — registering, logging in, or
// logging out and in as someone else — votes as the user the page shows. The app's socket is
// opened when the page loads, signed out; these journeys start there, in Chromium at 360 px,
// and never reload the page (a reload would open a new socket and hide the fault).
import type { Browser, Locator, Page } from 'playwright-core';
import {
  createTournament,
  ensureChromium,
  gqlData,
  launchChromium,
  loginAs,
  mailboxCode,
  registerVerified,
  startStandalone,
  type Account,
  type Standalone,
} from './e2e-support';

const PHONE_740 = { width: 360, height: 740 };

let app: Standalone;
let base: string;
let browser: Browser;
let tournament: string;
let admin: Page;

beforeAll(async () => {
  ensureChromium();
  app = await startStandalone({ DEMO: 'off', GAME_RESULTS_SECONDS: '10' });
  base = app.base;
  browser = await launchChromium();
  admin = await (await browser.newContext()).newPage();
  await loginAs(admin, base);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

function button(page: Page | Locator, label: string): Locator {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('button', { name: new RegExp(`^(\\S+ )?${escaped}$`) });
}

/** A phone page opened signed out on `path`, marked so a reload would show (`sameDocument`). */
async function openSignedOut(path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE_740, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(`${base}${path}`);
  await page.evaluate(() => {
    (window as unknown as { openedOnce: boolean }).openedOnce = true;
  });
  await page.locator('.guest-label').waitFor();
  return page;
}

/** Whether the page is still the document `openSignedOut` opened (no reload happened). */
function sameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { openedOnce?: boolean }).openedOnce === true);
}

async function logInThroughForm(page: Page, account: Account): Promise<void> {
  await page.getByRole('tab', { name: 'Login' }).click();
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await button(page, 'Login').last().click();
  await page.waitForURL(`${base}/`);
  await page.locator('.name-badge', { hasText: account.displayName }).waitFor();
}

/**
 * Home → PLAY NOW on the live tournament → picks option `option`; the server's view of it. The
 * home screen may have taken the player to the game by itself ("Take me to a tournament when it
 * goes live", on by default) before they press PLAY NOW.
 */
async function playNowAndPick(page: Page, option: number): Promise<string> {
  const gamePage = new RegExp(`/game/${tournament}`);
  const playNow = button(page.locator('.hero'), 'PLAY NOW');
  await Promise.race([page.waitForURL(gamePage), playNow.waitFor()]);
  if (!gamePage.test(page.url())) await playNow.click({ timeout: 5_000 }).catch(() => undefined);
  await page.waitForURL(gamePage);
  const image = page.locator('.image-option').nth(option);
  await image.click();
  await page.getByText('Choice locked in - waiting for other players').waitFor();
  return ownVote(page);
}

/** The signed-in caller's vote in the current round, as the server has it (HTTP, the cookie). */
async function ownVote(page: Page): Promise<string> {
  const { liveGame } = await gqlData<{ liveGame: { player: { voteImageId: string | null } } }>(
    page,
    'query($t:ID!){liveGame(tournamentId:$t){player{voteImageId}}}',
    { t: tournament },
  );
  return liveGame.player.voteImageId ?? 'no vote';
}

describe('signing in on a page that is already open', () => {
  const NEWCOMER = { email: 'nell@e2e.local', displayName: 'Nell New', password: 'nellpass123' };
  const RETURNING = { email: 'rory@e2e.local', displayName: 'Rory Back', password: 'rorypass123' };
  const FIRST = { email: 'fay@e2e.local', displayName: 'Fay First', password: 'faypass1234' };
  const SECOND = { email: 'sid@e2e.local', displayName: 'Sid Second', password: 'sidpass1234' };
  let newcomer: Page;
  let returning: Page;
  let switched: Page;
  /** Each page's pick in round 1, as the server has it. */
  const votes = new Map<Page, { option: number; imageId: string }>();

  it('registers and verifies a newcomer through the forms, landing home signed in', async () => {
    newcomer = await openSignedOut('/auth?tab=register');
    await newcomer.getByLabel('Email').fill(NEWCOMER.email);
    await newcomer.getByLabel('Display name').fill(NEWCOMER.displayName);
    await newcomer.getByLabel('Password').fill(NEWCOMER.password);
    await button(newcomer, 'Create Account').click();
    await newcomer.waitForURL(`${base}/verify-email`);
    const code = await mailboxCode(newcomer, NEWCOMER.email);
    await newcomer.getByLabel('Verification code').fill(code);
    await button(newcomer, 'Verify Email').click();
    await newcomer.waitForURL(`${base}/`);
    await newcomer.locator('.name-badge', { hasText: NEWCOMER.displayName }).waitFor();
  }, 60_000);

  it('logs an existing player in through the form', async () => {
    const setUp = await (await browser.newContext()).newPage();
    for (const account of [RETURNING, FIRST, SECOND]) await registerVerified(setUp, base, account);
    returning = await openSignedOut('/auth');
    await logInThroughForm(returning, RETURNING);
  }, 60_000);

  it('logs a player in, out, and in as another on the same page', async () => {
    switched = await openSignedOut('/auth');
    await logInThroughForm(switched, FIRST);
    await switched.getByRole('button', { name: 'Account menu' }).click(); // at 360 px
    await switched.getByRole('menuitem', { name: /Logout/ }).click();
    await switched.locator('.guest-label').waitFor();
    await button(switched, 'Login').click();
    await switched.waitForURL(`${base}/auth`);
    await logInThroughForm(switched, SECOND);
  }, 20_000);

  it('counts the vote each of them casts after PLAY NOW, for the user the header shows', async () => {
    // Made now, while the three pages wait on the home screen, signed in: it reaches them there.
    tournament = await createTournament(admin, {
      title: 'Open Page Cup',
      startAt: new Date(Date.now() + 8_000),
      roundTimeSeconds: 20,
    });
    // Three different images: each player's row of the results is theirs alone.
    for (const [option, page] of [newcomer, returning, switched].entries()) {
      const imageId = await playNowAndPick(page, option);
      expect(imageId).toMatch(new RegExp(`^round-1-image-`));
      votes.set(page, { option, imageId });
      await expect(page.getByText('Vote not recorded').count()).resolves.toBe(0);
    }
    expect(new Set([...votes.values()].map((vote) => vote.imageId)).size).toBe(3);
    // The user logged out on that page never voted.
    const first = await (await browser.newContext()).newPage();
    await loginAs(first, base, FIRST);
    expect(await ownVote(first)).toBe('no vote');
    // And no page was reloaded: each vote went over the socket the page opened signed out.
    for (const page of [newcomer, returning, switched]) expect(await sameDocument(page)).toBe(true);
  }, 90_000);

  it("shows each player's vote in the round's results", async () => {
    expect(votes.size).toBe(3);
    // The results show for a few seconds: every page is watched at once.
    await Promise.all(
      [...votes].map(async ([page, vote]) => {
        await page.getByText('Round 1 Results').waitFor({ timeout: 60_000 });
        const own = page
          .locator('.result-row')
          .filter({ hasText: `Option ${vote.option + 1} (your vote)` });
        await own.getByText('1 votes', { exact: false }).waitFor();
      }),
    );
  }, 90_000);
});
