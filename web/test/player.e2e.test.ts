// The player's web app in a real browser (Debian's chromium driven by playwright-core) against
// the bundled standalone process, as `npm start` runs it (issue 11, acceptance 1-3):
// - every route of spec §2 as a visitor, a user and an admin: the spec's strings and states,
//   a screenshot of each screen at 1280 and 360 px (web/test-artifacts/player), axe with no
//   serious or critical violation, no horizontal overflow at 360 px;
// - a player's evening: register, verify with the code from the dev mailbox, pre-register 17
//   offline choices from the home card, then play a live game to its end against a second
//   player while a visitor watches: countdown, results, the ad between rounds, a reload mid-round,
//   the champion and the elimination.
import { TOTAL_ROUNDS } from '@underdog/rules';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  artifactsDir,
  createTournament,
  DESKTOP,
  ensureChromium,
  gqlData,
  launchChromium,
  loginAs,
  mailboxCode,
  PHONE,
  registerVerified,
  seriousViolations,
  shootBothWidths,
  startStandalone,
  type Standalone,
} from './e2e-support';

let app: Standalone;
let base: string;
let browser: Browser;
let shots: string;
/** Contexts by role; each keeps its cookie (session) and localStorage (device id). */
let visitor: BrowserContext;
let user: BrowserContext;
let admin: BrowserContext;
let adminPage: Page;
const ROUTE_USER = {
  email: 'rita@e2e.local',
  displayName: 'Rita Route',
  password: 'ritapass123',
};
let evening: string;

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('player');
  // The suite makes its own tournaments (DEMO=off keeps the lists to them). The results show for
  // the rules' 10 s: with 5 s, a loaded CI machine's axe check and screenshots of the voting phase
  // outlasted them, and the test waited for results already gone.
  app = await startStandalone({ DEMO: 'off' });
  base = app.base;
  browser = await launchChromium();
  // Reduced motion (which the app honours): axe measures colours, so no screen is caught mid-fade.
  visitor = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
  user = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
  admin = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
  adminPage = await admin.newPage();
  await loginAs(adminPage, base);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/**
 * Waits for each text on the page (exact match), failing with the missing one and, so that a
 * failure on CI says where the page was instead, the start of what it showed then.
 */
async function sees(page: Page | Locator, ...texts: string[]): Promise<void> {
  for (const text of texts) {
    try {
      await page.getByText(text, { exact: true }).first().waitFor();
    } catch (error) {
      throw new Error(`"${text}" never showed; the page showed: ${await shownOn(page)}`, {
        cause: error,
      });
    }
  }
}

/** The start of what the page shows, for a failure's message. */
async function shownOn(page: Page | Locator): Promise<string> {
  const shown = await page
    .locator('body')
    .first()
    .innerText({ timeout: 2_000 })
    .catch(() => '(the page could not be read)');
  return shown.replace(/\s+/g, ' ').slice(0, 400);
}

/** Picks the round's option at `index` (0-3); a failure says what the page showed instead. */
async function picks(page: Page, index: number): Promise<void> {
  try {
    await page.locator('.image-option').nth(index).click();
  } catch (error) {
    throw new Error(
      `option ${index + 1} could not be picked; the page showed: ${await shownOn(page)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Starts waiting now for what a passing phase of the game shows (results show for 10 s, an ad
 * for 5 s), so the checks and screenshots of the phase before cannot make the test miss it on a
 * loaded machine; awaited where the test needs it.
 */
function meanwhile(watch: () => Promise<void>): Promise<void> {
  const watching = watch();
  // Rejections surface where it is awaited; this only keeps Node from calling them unhandled.
  watching.catch(() => undefined);
  return watching;
}

/** A button by its visible label (antd puts an icon's name, e.g. "login", before it). */
function button(page: Page | Locator, label: string): Locator {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByRole('button', { name: new RegExp(`^(\\S+ )?${escaped}$`) });
}

describe('the home screen before any tournament exists', () => {
  it('says NO ACTIVE TOURNAMENTS, Stay Tuned! and both empty lists', async () => {
    const page = await visitor.newPage();
    await page.goto(`${base}/`);
    await sees(
      page,
      'NO ACTIVE TOURNAMENTS',
      'Stay Tuned!',
      'No upcoming tournaments scheduled. Stay tuned for new competitions!',
      'No tournaments have finished yet',
    );
    expect(await seriousViolations(page, [])).toEqual([]);
    const { overflowAt360 } = await shootBothWidths(page, shots, 'home-empty');
    expect(overflowAt360).toBe(false);
    await page.close();
  }, 30_000);
});

type Role = 'visitor' | 'user' | 'admin';

interface Screen {
  name: string;
  path: string;
  /** Where the route must end up (a redirect); no screenshot or axe then. */
  redirectsTo?: string;
  /** Asserts the spec's strings and states; after it, the screen is settled. */
  check?(page: Page): Promise<void>;
}

function screensOf(role: Role): Screen[] {
  const signedIn = role !== 'visitor';
  const game = (mode: string) => `/game/${evening}?mode=${mode}`;
  return [
    {
      name: 'home',
      path: '/',
      async check(page) {
        const hero = page.locator('.hero');
        await sees(
          hero,
          'NEXT TOURNAMENT',
          'Evening Cup',
          'STARTS IN',
          '$1,000',
          'Play offline now, or wait to play live when tournament starts!',
        );
        expect(await button(hero, 'PLAY OFFLINE').isEnabled()).toBe(true);
        await sees(page, 'Upcoming Tournaments', 'Night Cup', 'UPCOMING', 'Previous Tournaments');
        const row = page.locator('.row').filter({ hasText: 'Night Cup' });
        expect(await button(row, signedIn ? 'PLAY OFFLINE' : 'LOGIN TO PLAY').isEnabled()).toBe(
          signedIn,
        );
        await sees(page.locator('.tab-bar'), 'Tournaments', 'Rules', 'Profile');
        if (!signedIn) {
          await sees(page, 'Guest');
          await button(page, 'Register').waitFor();
          await button(page, 'Login').waitFor();
        } else {
          await sees(page, role === 'admin' ? 'Underdog Admin' : ROUTE_USER.displayName);
        }
        if (role === 'admin') await button(page, 'Admin').waitFor();
      },
    },
    signedIn
      ? { name: 'auth', path: '/auth', redirectsTo: role === 'admin' ? '/admin' : '/' }
      : {
          name: 'auth',
          path: '/auth',
          async check(page) {
            await sees(page, 'Think different. Win big.');
            await page.getByLabel('Email').waitFor();
            await page.getByLabel('Password').waitFor();
            await page.getByRole('tab', { name: 'Register' }).click();
            await page.getByLabel('Display name').waitFor();
            await button(page, 'Create Account').waitFor();
          },
        },
    signedIn
      ? { name: 'verify-email', path: '/verify-email', redirectsTo: '/' }
      : {
          name: 'verify-email',
          path: '/verify-email',
          async check(page) {
            await sees(page, 'Enter your e-mail and the 6-digit code we sent you.');
            await page.getByLabel('Verification code').fill('12ab');
            await button(page, 'Verify Email').click();
            await sees(page, 'Verification code must contain only numbers');
            // axe measures colours: let the message's fade-in finish first.
            await page.waitForFunction(
              () => !document.querySelector('.ant-form-show-help-item-appear'),
            );
          },
        },
    ...(signedIn
      ? []
      : [
          {
            name: 'verify-email-token',
            path: '/verify-email/not-a-real-token',
            async check(page: Page) {
              await page.locator('.ant-alert-error').waitFor();
              // The Verify button's loading state (dimmed, with a spinner) must be gone for axe.
              await button(page, 'Verify Email').waitFor();
              await page.locator('.ant-btn-loading, .ant-btn-loading-icon').first().waitFor({
                state: 'detached',
              });
              await button(page, 'Resend code').waitFor();
            },
          },
        ]),
    {
      name: 'rules',
      path: '/rules',
      async check(page) {
        await sees(page, 'How Underdog Works', 'Strategy', 'Offline Mode', 'Example');
        await page.getByText('48 players have dropped to 3', { exact: false }).waitFor();
        await button(page, 'Join Tournament').waitFor();
      },
    },
    signedIn
      ? {
          name: 'profile',
          path: '/profile',
          async check(page) {
            const name = role === 'admin' ? 'Underdog Admin' : ROUTE_USER.displayName;
            await page.getByRole('heading', { name, level: 1 }).waitFor();
            await sees(page, 'Member', 'Statistics', 'Tournaments Played', 'Achievements');
            await page
              .locator('.profile-avatar')
              .getByText(name.slice(0, 2).toUpperCase())
              .waitFor();
            await button(page, 'Edit Profile').waitFor();
            await button(page, 'Change Password').waitFor();
            await button(page, 'Sign Out').waitFor();
          },
        }
      : { name: 'profile', path: '/profile', redirectsTo: '/auth' },
    {
      name: 'offline',
      path: '/offline',
      async check(page) {
        if (!signedIn) {
          await sees(page, 'Login Required', 'Go to Login');
          return;
        }
        await sees(page, 'Offline Mode', 'How it works', 'Evening Cup', 'Night Cup');
        await sees(page, 'Round time: 30s');
        const card = page.locator('.offline-card').filter({ hasText: 'Evening Cup' });
        await button(card, 'PRE-SUBMIT CHOICES').waitFor();
      },
    },
    { name: 'live', path: '/live', redirectsTo: '/' },
    {
      name: 'game-live',
      path: game('live'),
      async check(page) {
        await sees(page, 'Live Mode', 'Playing Tournament', 'Waiting for game to start...');
        await sees(page, 'Evening Cup', 'Upcoming Tournament', 'Prize: $1,000');
        await button(page, 'Back to Home').waitFor();
        expect(await page.locator('.tab-bar').count()).toBe(0);
        // Spec §6: the play screen's header is passed isAdmin false, admins included.
        expect(
          await page.locator('.tournament-header').getByRole('button', { name: 'Admin' }).count(),
        ).toBe(0);
      },
    },
    {
      name: 'game-offline',
      path: game('offline'),
      async check(page) {
        if (!signedIn) {
          await sees(
            page,
            'Offline Mode Access Denied',
            'Login Required',
            'You must be logged in to participate in offline mode and save your tournament choices.',
          );
          await button(page, 'Login to Continue').waitFor();
          return;
        }
        // Spec §2's offline-setup phase: the 17-round picker, right on the game screen.
        await sees(page, 'Pre-Tournament Participation', `Round 1 of ${TOTAL_ROUNDS}`, 'Pending');
        await sees(page, `0/${TOTAL_ROUNDS} rounds (0%)`);
        expect(await page.locator('.picker__option').count()).toBe(4);
        await button(page, 'Reset All').waitFor();
        await button(page, 'Cancel Pre-Registration').waitFor();
      },
    },
    {
      name: 'game-watch',
      path: game('watch'),
      async check(page) {
        await sees(page, 'Watch Mode', 'Watching Tournament', 'Waiting for game to start...');
      },
    },
    {
      name: 'game-results',
      path: game('results'),
      async check(page) {
        await sees(page, 'IN PROGRESS', 'No Winner Yet', 'Tournament incomplete');
        await sees(page, 'Rounds completed in this tournament');
      },
    },
    {
      name: 'tournaments',
      path: '/tournaments',
      async check(page) {
        await sees(page, 'All Tournaments', 'Evening Cup', 'Night Cup');
        expect(await page.getByRole('button', { name: 'LOGIN TO PLAY' }).count()).toBe(
          signedIn ? 0 : 2,
        );
      },
    },
    {
      name: 'not-found',
      path: '/no-such-page',
      async check(page) {
        await page.getByRole('heading', { name: '404 Page Not Found' }).waitFor();
        await button(page, 'Back to Home').waitFor();
      },
    },
  ];
}

describe('every route of spec §2', () => {
  beforeAll(async () => {
    const now = Date.now();
    evening = await createTournament(adminPage, {
      title: 'Evening Cup',
      prize: '$1,000',
      startAt: new Date(now + 90 * 60_000),
    });
    await createTournament(adminPage, {
      title: 'Night Cup',
      prize: '$2,000',
      startAt: new Date(now + 180 * 60_000),
    });
    const page = await user.newPage();
    await registerVerified(page, base, ROUTE_USER);
    await page.close();
    await gqlData(adminPage, 'mutation($n:String!){updateProfile(displayName:$n){id}}', {
      n: 'Underdog Admin',
    });
  }, 60_000);

  const contexts: Record<Role, () => BrowserContext> = {
    visitor: () => visitor,
    user: () => user,
    admin: () => admin,
  };

  it.each<Role>(['visitor', 'user', 'admin'])(
    'as a %s: the spec strings and states, axe clean, no overflow at 360 px',
    async (role) => {
      const page = await contexts[role]().newPage();
      const problems: string[] = [];
      for (const screen of screensOf(role)) {
        await page.goto(`${base}${screen.path}`);
        if (screen.redirectsTo) {
          await page.waitForURL(`${base}${screen.redirectsTo}`);
          continue;
        }
        await screen.check?.(page);
        for (const violation of await seriousViolations(page, []))
          problems.push(`${screen.name}: ${violation}`);
        const { overflowAt360 } = await shootBothWidths(page, shots, `${role}-${screen.name}`, () =>
          page.waitForTimeout(150),
        );
        if (overflowAt360) problems.push(`${screen.name}: overflows at 360 px`);
      }
      expect(problems).toEqual([]);
      await page.close();
    },
    120_000,
  );
});

describe("a player's evening in the browser", () => {
  const PLAYER = { email: 'pat@e2e.local', displayName: 'Pat Player', password: 'patpass1234' };
  const RIVAL = { email: 'bob@e2e.local', displayName: 'Bob Rival', password: 'bobpass1234' };
  let player: BrowserContext;
  let p1: Page;

  beforeAll(async () => {
    player = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    p1 = await player.newPage();
  });

  it('registers, reads the code from the dev mailbox and verifies, landing home after 2 s', async () => {
    await p1.goto(`${base}/auth?tab=register`);
    await p1.getByLabel('Email').fill(PLAYER.email);
    await p1.getByLabel('Display name').fill(PLAYER.displayName);
    await p1.getByLabel('Password').fill(PLAYER.password);
    await button(p1, 'Create Account').click();
    await p1.waitForURL(`${base}/verify-email`);
    await sees(p1, 'Account Created!', `Enter the 6-digit code we sent to ${PLAYER.email}.`);
    const code = await mailboxCode(p1, PLAYER.email);
    await p1.getByLabel('Verification code').fill(code);
    await button(p1, 'Verify Email').click();
    await p1.getByRole('heading', { name: 'Email Verified!' }).waitFor();
    await p1.waitForURL(`${base}/`, { timeout: 5_000 });
    await sees(p1, PLAYER.displayName);
  }, 40_000);

  it('pre-registers 17 offline choices from the home card: PLAY OFFLINE, then ALREADY REGISTERED', async () => {
    await p1.goto(`${base}/`);
    const hero = p1.locator('.hero');
    await sees(hero, 'Evening Cup');
    await button(hero, 'PLAY OFFLINE').click();
    await p1.waitForURL(`${base}/game/${evening}?mode=offline`);
    await sees(p1, 'Pre-Tournament Participation');
    for (let round = 1; round <= TOTAL_ROUNDS; round += 1) {
      await sees(p1, `Round ${round} of ${TOTAL_ROUNDS}`);
      if (round === TOTAL_ROUNDS) await sees(p1, 'Final round! Make your last choice.');
      if (round === 9) {
        await sees(p1, `8/${TOTAL_ROUNDS} rounds (${Math.round(800 / TOTAL_ROUNDS)}%)`);
        await shootBothWidths(p1, shots, 'flow-offline-picker');
      }
      await p1
        .locator('.picker__option')
        .nth(round % 4)
        .click();
    }
    await sees(p1, 'Registration Complete!', `All ${TOTAL_ROUNDS} Rounds Complete!`);
    await sees(p1, 'Success!');
    await sees(p1, '✓ Pre-Registered for Tournament', 'Pre-Registration Complete!');
    const { offlineChoices } = await gqlData<{
      offlineChoices: { roundNumber: number; selectedImageId: string }[];
    }>(p1, 'query($t:ID!){offlineChoices(tournamentId:$t){roundNumber selectedImageId}}', {
      t: evening,
    });
    expect(offlineChoices).toHaveLength(TOTAL_ROUNDS);
    await p1.goto(`${base}/`);
    const registered = button(p1.locator('.hero'), 'ALREADY REGISTERED');
    await registered.waitFor();
    expect(await registered.isDisabled()).toBe(true);
    await shootBothWidths(p1, shots, 'flow-home-already-registered');
  }, 60_000);

  it('plays a live game to its end against a rival while a visitor watches: countdown, results, the ad, a reload mid-round, champion and elimination', async () => {
    await gqlData(
      adminPage,
      'mutation($i:CreateAdvertisementInput!){createAdvertisement(input:$i){id}}',
      {
        i: {
          title: 'Underdog Snacks',
          type: 'text',
          content: 'Crunchy snacks for the least popular choice.',
          displayPosition: 'between_rounds',
          duration: 5,
        },
      },
    );
    const rivalContext = await browser.newContext({ viewport: PHONE, reducedMotion: 'reduce' });
    const p2 = await rivalContext.newPage();
    const rival = await registerVerified(p2, base, RIVAL);
    const me = await gqlData<{ me: { username: string } }>(p1, '{me{username}}');
    const watcher = await visitor.newPage();
    // Created only now, so the lobby's window is the three pages' loads alone (a registration
    // inside it outlasted it on a loaded CI machine).
    const live = await createTournament(adminPage, {
      title: 'Live Cup',
      prize: '$500',
      startAt: new Date(Date.now() + 15_000),
      roundTimeSeconds: 8,
    });
    watcher.setDefaultTimeout(45_000);
    p1.setDefaultTimeout(45_000);
    p2.setDefaultTimeout(45_000);

    await p1.goto(`${base}/game/${live}`);
    await p2.goto(`${base}/game/${live}?mode=live`);
    await watcher.goto(`${base}/game/${live}?mode=watch`);
    await sees(p1, 'Playing Tournament', 'Waiting for game to start...');
    await sees(watcher, 'Watching Tournament');

    // Round 1: the countdown runs; different images tie at one vote each, so both advance.
    await sees(p1, 'Choose the LEAST Popular Option!', 'LIVE TOURNAMENT - Round 1');
    const clock = p1.getByRole('timer', { name: 'Time remaining' });
    expect(await clock.textContent()).toMatch(/^\d+s$/);
    await picks(p1, 0);
    await sees(p1, 'Choice locked in - waiting for other players');
    await picks(p2, 1);
    await sees(p2, 'Choice locked in - waiting for other players');
    const round1Results = meanwhile(async () => {
      await sees(p1, 'Round 1 Results');
      const ownRow = p1.locator('.result-row').filter({ hasText: 'Option 1 (your vote)' });
      await sees(ownRow, '1 votes · 50%', 'ADVANCED');
      await sees(p2.locator('.result-row').filter({ hasText: 'Option 2 (your vote)' }), 'ADVANCED');
    });
    // The ad between rounds.
    const ad = meanwhile(async () => {
      await sees(
        p1,
        'Advertisement',
        'Underdog Snacks',
        'Crunchy snacks for the least popular choice.',
      );
      await sees(p1, 'The next round will start automatically after the ad.');
      await sees(watcher, 'Underdog Snacks');
    });
    await sees(watcher, 'Login required to participate - you can only watch');
    expect(await watcher.locator('.image-option:enabled').count()).toBe(0);
    expect(await seriousViolations(p1, [])).toEqual([]);
    await p1.screenshot({ path: `${shots}/flow-round-1280.png` });
    await p2.screenshot({ path: `${shots}/flow-round-360.png`, fullPage: true });

    await round1Results;
    expect(await seriousViolations(p1, [])).toEqual([]);
    await p1.screenshot({ path: `${shots}/flow-results-1280.png` });
    await p2.screenshot({ path: `${shots}/flow-results-360.png`, fullPage: true });

    await ad;
    expect(await seriousViolations(p1, [])).toEqual([]);
    await p1.screenshot({ path: `${shots}/flow-ad-1280.png` });
    await p2.screenshot({ path: `${shots}/flow-ad-360.png`, fullPage: true });

    // Round 2: a vote, then a reload mid-round comes back to the round with the vote shown.
    await sees(p1, 'LIVE TOURNAMENT - Round 2', 'Choose the LEAST Popular Option!');
    await picks(p1, 2);
    await sees(p1, 'Choice locked in - waiting for other players');
    await picks(p2, 2);
    await p1.reload();
    await sees(p1, 'Round 2', 'Choice locked in - waiting for other players');
    expect(await p1.locator('.image-option').nth(2).getAttribute('aria-pressed')).toBe('true');
    expect(await p1.locator('.image-option[aria-pressed="true"]').count()).toBe(1);
    await sees(p1, 'Round 2 Results');

    // Round 3: the rival misses the round and is eliminated; the player is the last one left.
    await sees(p1, 'LIVE TOURNAMENT - Round 3', 'Choose the LEAST Popular Option!');
    await picks(p1, 3);
    await sees(p2, 'HURRY UP! TIME RUNNING OUT!');
    await sees(p2, "Time's up! You missed this round");

    await sees(p1, 'CHAMPION!', me.me.username, '$500');
    expect(await p1.getByText('Tournament Complete!').count()).toBe(0);
    await sees(p2, 'Tournament Complete!', me.me.username, 'ELIMINATED in round 3');
    expect(await p2.getByText('CHAMPION!').count()).toBe(0);
    await sees(watcher, 'Tournament Complete!', me.me.username);
    expect(await watcher.getByText('CHAMPION!').count()).toBe(0);
    expect(rival.username).not.toBe(me.me.username);
    for (const [page, name] of [
      [p1, 'champion'],
      [p2, 'eliminated'],
    ] as const) {
      expect(await seriousViolations(page, [])).toEqual([]);
      const { overflowAt360 } = await shootBothWidths(page, shots, `flow-${name}`);
      expect(overflowAt360).toBe(false);
    }
    await watcher.close();
    await rivalContext.close();
  }, 150_000);
});
