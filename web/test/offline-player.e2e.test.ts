// Issue 39, acceptance 1 and 2, in a real browser (Debian's chromium driven by playwright-core)
// against the bundled standalone process, on 360 px phones:
// - two players pre-register their 17 choices and watch the game played for them, one in
//   English, one in Persian; a third plays live. Round 1 ties (each on their own image), so all
//   advance; in round 2 the live player and the Persian offline player share an image and go out,
//   the English offline player's image alone wins, and with it the game. Each offline player's
//   pick is highlighted in each round, their own tag says ADVANCED while they advance, the winner
//   sees CHAMPION! without any elimination beneath, the other ELIMINATED in round 2, and the
//   statistics name the same winner.
// - the live player's toasts, recorded as they come and go: one at a time, each for its spec §8
//   duration, the round's Complete and the next round's Voting, then Game Complete, Winner
//   Announced and Game Finished.
// Screenshots of the offline player's round and the game's end, in English and Persian, go to
// web/test-artifacts/offline-player (the ones in docs/screenshots are copied from there).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOTAL_ROUNDS } from '@underdog/rules';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { en } from '../src/app/i18n/en';
import { fa } from '../src/app/i18n/fa';
import {
  artifactsDir,
  createTournament,
  ensureChromium,
  gql,
  gqlData,
  launchChromium,
  loginAs,
  PHONE,
  registerVerified,
  settled,
  startStandalone,
  type Standalone,
} from './e2e-support';

/** Long enough for three pages to be checked and shot within a round on a busy machine. */
const ROUND_SECONDS = 12;
const RESULTS_SECONDS = 5;
/** The key the app keeps the chosen language under (web/src/app/i18n). */
const LANGUAGE_KEY = 'underdog.language';

type Catalog = typeof en;
interface Player {
  context: BrowserContext;
  page: Page;
  username: string;
  catalog: Catalog;
}

let app: Standalone;
let browser: Browser;
let shots: string;
let adminPage: Page;
let olive: Player;
let omid: Player;
let rex: Player;
let tournamentId: string;

/** A catalog string with its {{placeholders}} filled (Persian numbers in Persian digits). */
function text(catalog: Catalog, path: string, values: Record<string, number | string> = {}) {
  const template = path
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], catalog) as string;
  const digits = catalog === fa ? (n: number) => n.toLocaleString('fa-IR') : String;
  return template.replace(/{{\s*(\w+)(?:,\s*number)?\s*}}/g, (_, name: string) => {
    const value = values[name]!;
    return typeof value === 'number' ? digits(value) : value;
  });
}

/**
 * Records, inside the page, each toast's title with when it appeared and disappeared (the page's
 * clock), and the most toasts ever visible at once — what the user could read, as it happened.
 */
async function recordToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: { id: string; title: string; from: number; to?: number }[] = [];
    const state = { seen, mostAtOnce: 0 };
    (window as unknown as { toastLog: typeof state }).toastLog = state;
    // By the toast's own id (antd may render a notice's element anew while it shows).
    const open = new Map<string, (typeof seen)[number]>();
    const look = () => {
      const now = performance.now();
      const notices = [...document.querySelectorAll('.ant-notification-notice')];
      state.mostAtOnce = Math.max(state.mostAtOnce, notices.length);
      const ids = new Set<string>();
      for (const notice of notices) {
        const id = notice.getAttribute('data-toast-id') ?? '';
        ids.add(id);
        if (open.has(id)) continue;
        const title =
          notice.querySelector('.ant-notification-notice-message')?.textContent?.trim() ?? '';
        const entry = { id, title, from: now };
        seen.push(entry);
        open.set(id, entry);
      }
      for (const [id, entry] of open) {
        if (ids.has(id)) continue;
        entry.to = now;
        open.delete(id);
      }
    };
    new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
    look();
  });
}

/**
 * Watches, inside the page, whether a text ever shows from now on (e.g. that the next round
 * starts, which it must not after the final round): set once seen, whenever that is.
 */
async function watchForText(page: Page, key: string, wanted: string): Promise<void> {
  await page.evaluate(
    ([name, needle]) => {
      const flags = ((window as unknown as { seenTexts?: Record<string, boolean> }).seenTexts ??=
        {});
      flags[name] = false;
      const look = () => {
        if (document.body.innerText.includes(needle)) flags[name] = true;
      };
      new MutationObserver(look).observe(document.body, {
        childList: true,
        subtree: true,
        characterData: true,
      });
      look();
    },
    [key, wanted] as const,
  );
}

async function seenText(page: Page, key: string): Promise<boolean> {
  return page.evaluate(
    (name) =>
      (window as unknown as { seenTexts: Record<string, boolean> }).seenTexts[name] ?? false,
    key,
  );
}

async function newPlayer(
  language: 'en' | 'fa',
  index: number,
  displayName: string,
): Promise<Player> {
  const context = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    reducedMotion: 'reduce',
  });
  await context.addInitScript(([key, value]) => window.localStorage.setItem(key, value), [
    LANGUAGE_KEY,
    language,
  ] as const);
  const page = await context.newPage();
  page.setDefaultTimeout(45_000);
  const me = await registerVerified(page, app.base, {
    email: `offline-player${index}@e2e.local`,
    displayName,
    password: `offlinepass${index}23`,
  });
  return { context, page, username: me.username, catalog: language === 'fa' ? fa : en };
}

/** Saves 17 choices for the player: `first` for rounds 1 and 2 as given, position 0 after. */
async function preRegister(player: Player, picks: [string, string], deviceId: string) {
  const choices = Array.from({ length: TOTAL_ROUNDS }, (_, index) => ({
    roundNumber: index + 1,
    selectedImageId: index < 2 ? picks[index]! : '0',
  }));
  const answer = await gql(
    player.page,
    'mutation($t:ID!,$c:[OfflineChoiceInput!]!){saveOfflineChoices(tournamentId:$t,choices:$c){message}}',
    { t: tournamentId, c: choices },
    deviceId,
  );
  if (answer.errors?.length) throw new Error(JSON.stringify(answer.errors));
}

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('offline-player');
  app = await startStandalone({ DEMO: 'off', GAME_RESULTS_SECONDS: String(RESULTS_SECONDS) });
  browser = await launchChromium();
  const adminContext = await browser.newContext();
  adminPage = await adminContext.newPage();
  await loginAs(adminPage, app.base);

  olive = await newPlayer('en', 1, 'Olive Offline');
  omid = await newPlayer('fa', 2, 'Omid Offline');
  rex = await newPlayer('en', 3, 'Rex Live');

  // Pre-registration is open until 5 minutes before the start; then the start is brought near.
  const title = 'Offline Cup';
  tournamentId = await createTournament(adminPage, {
    title,
    prize: '$70',
    startAt: new Date(Date.now() + 60 * 60_000),
    roundTimeSeconds: ROUND_SECONDS,
  });
  // Round 1: each on their own image (a three-way tie: all advance). Round 2: Omid and Rex on
  // image 2, Olive alone on image 1 — hers is the least popular.
  await preRegister(olive, ['0', '0'], 'e2e-olive');
  await preRegister(omid, ['1', '1'], 'e2e-omid');
  await gqlData(
    adminPage,
    'mutation($id:ID!,$i:TournamentInput!){updateTournament(id:$id,input:$i){id}}',
    {
      id: tournamentId,
      i: { title, prize: '$70', startAt: new Date(Date.now() + 15_000).toISOString() },
    },
  );
  await Promise.all([
    olive.page.goto(`${app.base}/game/${tournamentId}?mode=offline`),
    omid.page.goto(`${app.base}/game/${tournamentId}?mode=offline`),
    // Live mode joins the live player on arrival.
    rex.page.goto(`${app.base}/game/${tournamentId}`),
  ]);
  await olive.page.getByText(en.game.preRegistered, { exact: true }).waitFor();
  await rex.page.getByText(en.game.playing, { exact: true }).waitFor();
  await recordToasts(rex.page);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The offline player's round N: the headline, the auto-play message, their pick highlighted. */
async function expectPickHighlighted(player: Player, round: number, position: number) {
  const { page, catalog } = player;
  await page.getByText(text(catalog, 'game.round', { round }), { exact: true }).waitFor();
  await page.getByText(catalog.game.headlineOffline, { exact: true }).waitFor();
  await page.getByText(catalog.game.messagePreRegistered, { exact: true }).waitFor();
  const chosen = page.locator('.image-option[aria-pressed="true"]');
  await chosen.waitFor();
  expect(await chosen.count()).toBe(1);
  expect(await page.locator('.image-option').nth(position).getAttribute('aria-pressed')).toBe(
    'true',
  );
  // Labelled as the pre-selected pick (drawn from data-pick), not by colour alone.
  expect(await chosen.getAttribute('data-pick')).toBe(catalog.game.preSelectedPick);
  // Still in: no ELIMINATED anywhere on the round.
  expect(await page.locator('.round-message .ant-tag').count()).toBe(0);
}

/** Round N's results as the player sees them: their own row marked, their own outcome. */
async function expectOwnOutcome(player: Player, round: number, option: number, outcome: string) {
  const { page, catalog } = player;
  await page
    .getByText(text(catalog, 'game.resultsTitle', { round }), { exact: true })
    .waitFor({ timeout: (ROUND_SECONDS + 20) * 1000 });
  const ownRow = page.locator('.result-row').filter({
    hasText: `${text(catalog, 'game.resultOption', { option })}${catalog.game.yourVote}`,
  });
  await ownRow.waitFor();
  await page.locator('.own-outcome').filter({ hasText: outcome }).waitFor();
}

describe('an offline player watching their game (360 px)', () => {
  it('highlights each pre-selected pick, says ADVANCED while they advance, and shows the real end', async () => {
    // Round 1: Olive on image 1, Omid on image 2, Rex (live) on image 4.
    await Promise.all([expectPickHighlighted(olive, 1, 0), expectPickHighlighted(omid, 1, 1)]);
    await rex.page.locator('.image-option:enabled').nth(3).click();
    await rex.page.getByText(en.game.messageLockedIn, { exact: true }).waitFor();
    await settled(olive.page);
    await olive.page.screenshot({ path: join(shots, 'offline-round-en-360.png') });
    await settled(omid.page);
    await omid.page.screenshot({ path: join(shots, 'offline-round-fa-360.png') });

    await Promise.all([
      expectOwnOutcome(olive, 1, 1, en.game.advanced),
      expectOwnOutcome(omid, 1, 2, fa.game.advanced),
    ]);
    await settled(olive.page);
    await olive.page.screenshot({ path: join(shots, 'offline-results-en-360.png') });

    // Round 2: Olive on image 1 alone; Omid and Rex on image 2.
    await Promise.all([expectPickHighlighted(olive, 2, 0), expectPickHighlighted(omid, 2, 1)]);
    // From here on (the final round) nothing may say a next round is coming.
    for (const { page, catalog } of [olive, omid])
      await watchForText(page, 'nextRound', catalog.game.nextRound);
    await rex.page.locator('.image-option:enabled').nth(1).click();
    await rex.page.getByText(en.game.messageLockedIn, { exact: true }).waitFor();

    await Promise.all([
      expectOwnOutcome(olive, 2, 1, en.game.advanced),
      expectOwnOutcome(omid, 2, 2, fa.game.eliminated),
    ]);

    // The end: Olive is the champion, with no elimination beneath; Omid went out in round 2.
    await olive.page.getByText(en.game.champion, { exact: true }).waitFor();
    await olive.page.getByText(olive.username, { exact: true }).waitFor();
    expect(await olive.page.getByText(/ELIMINATED in round/).count()).toBe(0);
    await omid.page.getByText(fa.game.tournamentComplete, { exact: true }).waitFor();
    await omid.page
      .getByText(text(fa, 'game.eliminatedInRound', { round: 2 }), { exact: true })
      .waitFor();
    expect(await omid.page.getByText(fa.game.champion, { exact: true }).count()).toBe(0);
    // The final round's results never said a next round was coming.
    expect(await seenText(olive.page, 'nextRound')).toBe(false);
    expect(await seenText(omid.page, 'nextRound')).toBe(false);
    for (const [player, name] of [
      [olive, 'game-end-en-360'],
      [omid, 'game-end-fa-360'],
    ] as const) {
      await settled(player.page);
      await player.page.screenshot({ path: join(shots, `${name}.png`) });
    }

    // The statistics agree: the same champion.
    const stats = await olive.context.newPage();
    await stats.goto(`${app.base}/game/${tournamentId}?mode=results`);
    await stats.getByText(en.game.statsCompleted, { exact: true }).waitFor();
    await stats.getByText(olive.username, { exact: true }).first().waitFor();
    await stats.close();
  }, 180_000);
});

describe("the live player's toasts", () => {
  /** Spec §8 durations of the toasts that must each be read, in the order they come. */
  const expected: [string, number][] = [
    ['Round 1 Complete', 4_000],
    ['Round 2 Voting', 3_000],
    ['Game Complete', 5_000],
    ['Winner Announced', 8_000],
    ['Game Finished', 5_000],
  ];

  it('shows one at a time, each for its duration: a round Complete, the next Voting, and the end of the game', async () => {
    const page = rex.page;
    // The queue runs behind the game: wait for the last of them to have come and gone.
    await page.waitForFunction(
      () => {
        const log = (window as unknown as { toastLog: { seen: { title: string; to?: number }[] } })
          .toastLog;
        return log.seen.some((toast) => toast.title === 'Game Finished' && toast.to !== undefined);
      },
      undefined,
      { timeout: 120_000 },
    );
    const log = await page.evaluate(
      () =>
        (
          window as unknown as {
            toastLog: {
              seen: { id: string; title: string; from: number; to?: number }[];
              mostAtOnce: number;
            };
          }
        ).toastLog,
    );
    const shown = log.seen.map(({ id, title, from, to }) => ({
      id,
      title,
      at: Math.round(from),
      ms: to === undefined ? undefined : Math.round(to - from),
    }));
    // Kept beside the screenshots: what the live player saw, when, for how long.
    writeFileSync(join(shots, 'toasts.json'), JSON.stringify(shown, null, 2));
    expect(log.mostAtOnce).toBe(1);
    const titles = shown.map((toast) => toast.title);
    expect(titles.filter((title) => expected.some(([wanted]) => wanted === title))).toEqual(
      expected.map(([title]) => title),
    );
    // Visible for its whole duration (the page's timers may run a little late, never early).
    const problems = expected.flatMap(([title, durationMs]) => {
      const ms = shown.find((entry) => entry.title === title)?.ms;
      return ms !== undefined && ms >= durationMs - 50 && ms <= durationMs + 1_500
        ? []
        : [`${title}: ${ms} ms instead of ${durationMs}`];
    });
    expect({ problems, shown }).toEqual({ problems: [], shown });
  }, 150_000);
});
