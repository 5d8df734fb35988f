// The waiting room (issue 25 point 5), in a real browser (Debian's chromium driven by
// playwright-core) against the bundled standalone process with a capacity of one socket
// (WEBSOCKET_CAPACITY=1) and a 1 s retry hint (WEBSOCKET_FULL_RETRY_SECONDS=1). A socket from
// the test holds the one place: the page's graphql-ws socket is closed with 1013, so the page
// shows the waiting room (in English and in Persian at 360 px, inside the screen) while the
// rest of it works over HTTP. Once the place frees, the page's next attempt gets in: the banner
// goes and the page now holds the place (the test's next socket is the one turned away).
// Screenshots go to web/test-artifacts/waiting-room.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import {
  artifactsDir,
  ensureChromium,
  hasHorizontalOverflow,
  launchChromium,
  PHONE,
  startStandalone,
  type Standalone,
} from './e2e-support';

/** The key the app keeps the chosen language under (web/src/app/i18n). */
const LANGUAGE_KEY = 'underdog.language';
const WAITING = {
  en: 'The game is full — you are in the waiting room.',
  fa: 'بازی پر است — شما در اتاق انتظار هستید.',
};

let app: Standalone;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('waiting-room');
  app = await startStandalone({
    DEMO: 'off',
    WEBSOCKET_CAPACITY: '1',
    WEBSOCKET_FULL_RETRY_SECONDS: '1',
    // The test's place-holding socket says nothing: it must not be closed as silent (4408).
    WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: '60000',
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** A socket to `/ws` from the test; resolves once open, or with the close that refused it. */
function holdPlace(): Promise<{ socket: WebSocket } | { refused: number; reason: string }> {
  const socket = new WebSocket(`${app.base.replace(/^http/, 'ws')}/ws`);
  return new Promise((resolve, reject) => {
    let opened = false;
    socket.once('error', reject);
    socket.once('open', () => {
      opened = true;
      // A socket the gateway turns away opens and is closed at once: wait for its first message.
      socket.once('message', () => resolve({ socket }));
    });
    socket.once('close', (code: number, reason: Buffer) => {
      if (opened) resolve({ refused: code, reason: reason.toString() });
    });
  });
}

function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
  });
}

async function openPhone(language: 'en' | 'fa'): Promise<Page> {
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
  page.setDefaultTimeout(30_000);
  return page;
}

it('shows the waiting room while the gateway is full, and the normal page once a place frees', async () => {
  const holder = await holdPlace();
  if (!('socket' in holder)) throw new Error(`the test's own socket was refused: ${holder.reason}`);

  for (const language of ['fa', 'en'] as const) {
    const page = await openPhone(language);
    await page.goto(`${app.base}/`);
    const banner = page.locator('.waiting-room').getByText(WAITING[language]);
    await banner.waitFor();
    // The rest of the page works over HTTP meanwhile.
    await page.locator('#upcoming-title').waitFor();
    const box = await page.locator('.waiting-room').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width + 0.5);
    expect(await hasHorizontalOverflow(page)).toBe(false);
    await page.screenshot({ path: join(shots, `waiting-${language}-360.png`) });
    if (language === 'fa') {
      await page.context().close();
      continue;
    }

    // A place frees: the page's next attempt (1 s ± 30%) gets in and the banner goes.
    await closed(holder.socket);
    await page.locator('.waiting-room').waitFor({ state: 'detached' });
    await page.screenshot({ path: join(shots, `in-en-360.png`) });
    // The page holds the one place now: the next socket is the one turned away.
    expect(await holdPlace()).toEqual({ refused: 1013, reason: 'Server full; retry in 1 s' });
    await page.context().close();
  }
}, 90_000);
