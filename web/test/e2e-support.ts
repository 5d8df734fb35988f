// What the browser suites share: Debian's chromium (driven by playwright-core), the bundled
// standalone process as `npm start` runs it, GraphQL/REST from inside a page, axe and the
// screenshot-at-two-widths check. Each e2e file starts one standalone process and one browser.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@underdog/test-support';
import { chromium, type APIRequestContext, type Browser, type Page } from 'playwright-core';

export const bundle = join(__dirname, '..', '..', 'apps', 'standalone', 'dist', 'main.js');
export const chromiumPath = '/usr/bin/chromium';
export const ADMIN = { email: 'admin@e2e.local', password: 'adminpass123' };

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Debian's chromium, installed with apt when missing; fails loudly when it cannot be had. */
export function ensureChromium(): void {
  if (existsSync(chromiumPath)) return;
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit' });
  if (!existsSync(chromiumPath))
    throw new Error(`chromium is not at ${chromiumPath} after apt-get`);
}

/** The folder (under web/test-artifacts, gitignored) a suite saves its screenshots in. */
export function artifactsDir(name: string): string {
  const dir = join(__dirname, '..', 'test-artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface Standalone {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:41234 */
  base: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Spawns the bundled standalone app on a free port (PORT=0) with the e2e admin and the given
 * extra environment (e.g. DEMO=off) and resolves once it logs the URL it listens on.
 */
export async function startStandalone(env: Record<string, string> = {}): Promise<Standalone> {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`pnpm build\` first`);
  const child = spawn(process.execPath, [bundle], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'listening' line in:\n${output}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`standalone exited (${code}) before listening:\n${output}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return {
    child,
    base,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}

export interface GraphQLResponse<T> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A GraphQL request from inside the page: same origin, so the session cookie goes along. */
export async function gql<T>(
  page: Page,
  query: string,
  variables: Record<string, unknown> = {},
  deviceId = 'e2e-browser',
): Promise<GraphQLResponse<T>> {
  return page.evaluate(
    async ([q, v, d]) => {
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Device-ID': d },
        body: JSON.stringify({ query: q, variables: v }),
      });
      return (await response.json()) as never;
    },
    [query, variables, deviceId] as const,
  );
}

/** A GraphQL request whose data must be there: throws with the errors otherwise. */
export async function gqlData<T>(
  page: Page,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await gql<T>(page, query, variables);
  if (!response.data || response.errors?.length)
    throw new Error(`GraphQL failed: ${JSON.stringify(response.errors)}`);
  return response.data;
}

/** A REST request from inside the page (JSON Content-Type only with a body). */
export async function rest<T>(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  deviceId = 'e2e-browser',
): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ([m, p, b, d]) => {
      const headers: Record<string, string> = { 'X-Device-ID': d };
      if (b !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(p, {
        method: m,
        headers,
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
    },
    [method, path, body, deviceId] as const,
  );
}

/** Logs the page's context in as the e2e admin (the cookie then serves every page of it). */
export async function loginAs(
  page: Page,
  base: string,
  who: { email: string; password: string } = ADMIN,
): Promise<void> {
  if (!page.url().startsWith(base)) await page.goto(`${base}/`);
  await gqlData(page, 'mutation($e:String!,$p:String!){login(email:$e,password:$p){id}}', {
    e: who.email,
    p: who.password,
  });
}

/**
 * axe-core's serious and critical violations on the page, as "rule: targets" lines.
 * Evaluated over the DevTools protocol, so the app's CSP (script-src 'self') stays enforced.
 */
export async function seriousViolations(
  page: Page,
  exclude: string[] = ['.app-header'],
): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async (excluded) => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: unknown): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run({ exclude: excluded.map((selector) => [selector]) });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }, exclude);
}

/** Whether the document is wider than the viewport (content clipped or scrolling sideways). */
/**
 * The page at rest: antd's open/close motion over (no `-enter`, `-appear` or `-leave` class), so
 * axe, the overflow check and a screenshot see the settled page, not a guess of how long it takes.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => !document.querySelector('[class*="-enter"], [class*="-appear"], [class*="-leave"]'),
  );
}

export function hasHorizontalOverflow(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 800 };

/**
 * Screenshots the page at 1280 px and at 360 px (as `<name>-1280.png`, `<name>-360.png`) and
 * returns whether the 360 px layout overflowed horizontally; the viewport is restored after.
 * `ready` is awaited after each resize, so the shot shows the settled layout.
 */
export async function shootBothWidths(
  page: Page,
  dir: string,
  name: string,
  ready: () => Promise<unknown> = async () => undefined,
): Promise<{ overflowAt360: boolean }> {
  const before = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await ready();
  await page.screenshot({ path: join(dir, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await ready();
  const overflowAt360 = await hasHorizontalOverflow(page);
  await page.screenshot({ path: join(dir, `${name}-360.png`), fullPage: true });
  await page.setViewportSize(before);
  return { overflowAt360 };
}

interface MailboxMessage {
  to: string;
  subject: string;
  text: string;
}

/** The newest 6-digit code e-mailed to `email`, read from the dev mailbox (`/api/dev/mailbox`). */
export async function mailboxCode(page: Page, email: string, timeoutMs = 15_000): Promise<string> {
  return waitFor(
    async () => {
      const { status, body } = await rest<MailboxMessage[]>(page, 'GET', '/api/dev/mailbox');
      if (status !== 200) throw new Error(`GET /api/dev/mailbox answered ${status}`);
      return body
        .filter((message) => message.to === email)
        .map((message) => /\b(\d{6})\b/.exec(message.text)?.[1])
        .find((found) => found !== undefined);
    },
    { message: `a code e-mailed to ${email} in the dev mailbox`, timeoutMs, intervalMs: 250 },
  );
}

export interface Account {
  email: string;
  displayName: string;
  password: string;
}

/**
 * Registers and verifies an account through the API from the page (code from the dev mailbox);
 * the page's browser context is then signed in as it. Answers the new user's id and username.
 */
export async function registerVerified(
  page: Page,
  base: string,
  account: Account,
): Promise<{ id: string; username: string }> {
  if (!page.url().startsWith(base)) await page.goto(`${base}/`);
  await gqlData(page, 'mutation($i:RegisterInput!){register(input:$i){message}}', {
    i: account,
  });
  const code = await mailboxCode(page, account.email);
  await gqlData(page, 'mutation($c:String!){verifyEmail(code:$c){id}}', { c: code });
  const { me } = await gqlData<{ me: { id: string; username: string } }>(page, '{me{id username}}');
  return me;
}

/** Creates a tournament as the signed-in admin of the page's context; answers its id. */
export async function createTournament(
  page: Page,
  input: { title: string; startAt: Date; roundTimeSeconds?: number; prize?: string },
): Promise<string> {
  const { createTournament: created } = await gqlData<{ createTournament: { id: string } }>(
    page,
    'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
    { i: { ...input, startAt: input.startAt.toISOString() } },
  );
  return created.id;
}

/** A GraphQL answer as the server sends it: data, errors, or both. */
export interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/**
 * A client of the server as the web app is one, from outside a page: the browser context's
 * cookies, `X-Device-ID` on every call, a JSON Content-Type only with a body.
 */
export function documentedClient(api: APIRequestContext, base: string, deviceId: string) {
  const headers = { 'X-Device-ID': deviceId };
  return {
    async answer<T>(query: string, variables: Record<string, unknown> = {}) {
      const response = await api.post(`${base}/graphql`, { headers, data: { query, variables } });
      return (await response.json()) as GraphQLAnswer<T>;
    },
    async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const answer = await this.answer<T>(query, variables);
      if (!answer.data || answer.errors?.length)
        throw new Error(`${query}: ${JSON.stringify(answer.errors)}`);
      return answer.data;
    },
    async get<T>(path: string): Promise<{ status: number; body: T }> {
      const response = await api.get(`${base}${path}`, { headers });
      return { status: response.status(), body: (await response.json()) as T };
    },
    async post<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
      const response = await api.post(`${base}${path}`, {
        headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { data: body }),
      });
      return { status: response.status(), body: (await response.json()) as T };
    },
  };
}
export type DocumentedClient = ReturnType<typeof documentedClient>;

/** Registers `name` and verifies the account with the code from the development mailbox. */
export async function verifiedUser(
  api: DocumentedClient,
  name: string,
): Promise<{ id: string; username: string }> {
  const email = `${name.toLowerCase()}-${Date.now()}@e2e.local`;
  await api.graphql('mutation($i:RegisterInput!){register(input:$i){message}}', {
    i: { email, displayName: name, password: 'password123' },
  });
  const code = await waitFor(
    async () => {
      const mailbox = await api.get<{ to: string; text: string }[]>('/api/dev/mailbox');
      return /\b(\d{6})\b/.exec(mailbox.body.find((mail) => mail.to === email)?.text ?? '')?.[1];
    },
    {
      message: `the verification code for ${email} in the development mailbox`,
      timeoutMs: 10_000,
      intervalMs: 100,
    },
  );
  await api.graphql('mutation($c:String!){verifyEmail(code:$c){id}}', { c: code });
  const { me } = await api.graphql<{ me: { id: string; username: string } }>('{me{id username}}');
  return me;
}

/** A live game's round as `liveGame` shows it while its voting is open. */
export interface VotingRound {
  phase: string;
  roundNumber: number;
  images: { id: string }[];
}

/** Round N of the tournament's game, once its voting is open (read as `api` sees it). */
export function votingIn(
  api: DocumentedClient,
  tournamentId: string,
  roundNumber: number,
): Promise<VotingRound> {
  return waitFor(
    async () => {
      const { liveGame } = await api.graphql<{ liveGame: VotingRound }>(
        'query($id:ID!){liveGame(tournamentId:$id){phase roundNumber images{id}}}',
        { id: tournamentId },
      );
      return liveGame.phase === 'voting' && liveGame.roundNumber === roundNumber && liveGame;
    },
    { message: `round ${roundNumber}'s voting`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** The web app's vote: `castVote`, as the player `api` signed in as. */
export function castVote(
  api: DocumentedClient,
  tournamentId: string,
  roundNumber: number,
  imageId: string,
) {
  return api.graphql(
    'mutation($id:ID!,$r:Int!,$i:ID!){castVote(tournamentId:$id,roundNumber:$r,imageId:$i){imageId}}',
    { id: tournamentId, r: roundNumber, i: imageId },
  );
}

/** Resolves once the tournament's status is `finished` (its game ended and was recorded). */
export async function tournamentFinished(
  api: DocumentedClient,
  tournamentId: string,
  what = `${tournamentId} finished`,
  timeoutMs = 90_000,
): Promise<void> {
  await waitFor(
    async () => {
      const { tournament } = await api.graphql<{ tournament: { status: string } }>(
        'query($id:ID!){tournament(id:$id){status}}',
        { id: tournamentId },
      );
      return tournament.status === 'finished';
    },
    { message: what, timeoutMs, intervalMs: 250 },
  );
}
