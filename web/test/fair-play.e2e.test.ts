// Issue 28, acceptance 4: the admin sees the fair-play section in the details dialog and the
// flag on the winner in the history, in a real browser (Debian's chromium driven by
// playwright-core) against the bundled standalone process. A small game is played through
// GraphQL by a ring of 8 accounts (one home network, one browser build, signed up together,
// voting together and splitting their votes) and 4 honest players on their own networks.
import { join } from 'node:path';
import { waitFor } from '@underdog/test-support';
import type { APIRequestContext, Browser, BrowserContext } from 'playwright-core';
import {
  ADMIN,
  DESKTOP,
  PHONE,
  artifactsDir,
  ensureChromium,
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
  votingIn,
} from './e2e-support';

let app: Standalone;
let base: string;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('fair-play');
  // One proxy hop trusted: each player's X-Forwarded-For is their client address.
  app = await startStandalone({ DEMO: 'off', TRUST_PROXY: '1' });
  base = app.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The documented client of this test's app. */
const apiOf = (api: APIRequestContext, deviceId: string) => documentedClient(api, base, deviceId);
type Api = DocumentedClient;

interface Member {
  userId: string;
  username: string | null;
}
interface FairPlayJson {
  final: boolean;
  participantCount: number;
  flagged: Member[];
  clusters: { members: Member[]; score: number; flagged: boolean; evidence: { text: string }[] }[];
}

const RING_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) RingBrowser/1.0';

/**
 * Round 1: the 4 honest players pick option 1; the ring splits 3/3/2 over options 2–4, so its
 * two on option 4 (the least popular) advance. Round 2: only ring-0 votes and wins.
 */
async function playRingGame(contexts: BrowserContext[]) {
  const [adminContext, ...playerContexts] = contexts as [BrowserContext, ...BrowserContext[]];
  const admin = apiOf(adminContext.request, 'e2e-fair-play-admin');
  await admin.graphql('mutation($e:String!,$p:String!){login(email:$e,password:$p){id}}', {
    e: ADMIN.email,
    p: ADMIN.password,
  });
  const apis = playerContexts.map((context, i) => apiOf(context.request, `e2e-fair-play-${i}`));
  const ring = apis.slice(0, 8);
  const honest = apis.slice(8);
  const ringNames: string[] = [];
  const honestNames: string[] = [];
  for (const [i, api] of ring.entries())
    ringNames.push((await verifiedUser(api, `ring${i}`)).username);
  for (const [i, api] of honest.entries())
    honestNames.push((await verifiedUser(api, `fair${i}`)).username);
  const { createTournament } = await admin.graphql<{ createTournament: { id: string } }>(
    'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
    {
      i: {
        title: 'Ring Cup',
        prize: '$500',
        startAt: new Date(Date.now() + 4_000).toISOString(),
        roundTimeSeconds: 8,
      },
    },
  );
  const id = createTournament.id;
  for (const api of apis) {
    await api.graphql('mutation($id:ID!){joinTournament(tournamentId:$id){isParticipant}}', {
      id,
    });
  }
  const vote = (api: Api, roundNumber: number, imageId: string) =>
    castVote(api, id, roundNumber, imageId);
  const round1 = await votingIn(admin, id, 1);
  const option = (n: number) => round1.images[n]!.id;
  for (const api of honest) {
    await vote(api, 1, option(0));
    // Not a wait for anything: the honest players vote apart in time, as independent people
    // do, unlike the ring (the detector weighs how close in time votes are).
    await new Promise((resolve) => setTimeout(resolve, 600));
  }
  // The ring at once, from one machine.
  await Promise.all(ring.map((api, i) => vote(api, 1, option(i < 2 ? 3 : i < 5 ? 1 : 2))));
  const round2 = await votingIn(admin, id, 2);
  await vote(ring[0]!, 2, round2.images[0]!.id);
  await tournamentFinished(admin, id, 'Ring Cup finished', 60_000);
  return { id, ringNames, honestNames, admin, player: honest[0]! };
}

describe('the fair-play report in the admin dashboard', () => {
  it('flags the ring, shows its group and evidence in the details dialog and flags the winner in the history', async () => {
    // Each player a browser of their own: the ring's on one /24 and one browser build, the
    // honest players each on their own network and browser.
    const contexts = await Promise.all(
      Array.from({ length: 13 }, (_, i) =>
        browser.newContext(
          i === 0
            ? {}
            : i <= 8
              ? {
                  userAgent: RING_AGENT,
                  extraHTTPHeaders: { 'X-Forwarded-For': `203.0.113.${10 + i}` },
                }
              : {
                  userAgent: `Mozilla/5.0 (Honest ${i}) Browser/${i}.0`,
                  extraHTTPHeaders: { 'X-Forwarded-For': `198.51.${i}.7` },
                },
        ),
      ),
    );
    try {
      const game = await playRingGame(contexts);

      // The REST answer, and the same refused to a player (403) over REST and GraphQL.
      const refused = await game.player.get(`/api/admin/tournaments/${game.id}/fair-play`);
      expect(refused.status).toBe(403);
      const refusedGraphql = await game.player.answer(
        'query($id:ID!){tournamentFairPlay(tournamentId:$id){final}}',
        { id: game.id },
      );
      expect(refusedGraphql.errors?.[0]?.extensions?.code).toBe('ADMIN_ONLY');

      const page = await browser.newPage({ viewport: DESKTOP, reducedMotion: 'reduce' });
      await loginAs(page, base);
      // Signals travel through the bus: wait until the report has every participant.
      const report = await waitFor(
        async () => {
          const answer = await rest<FairPlayJson>(
            page,
            'GET',
            `/api/admin/tournaments/${game.id}/fair-play`,
          );
          expect(answer.status).toBe(200);
          return answer.body.final && answer.body.flagged.length > 0 && answer.body;
        },
        {
          message: 'the final report with its flagged players',
          timeoutMs: 20_000,
          intervalMs: 500,
        },
      );
      console.log(
        `fair-play e2e: ${report.participantCount} participants; clusters ` +
          JSON.stringify(
            report.clusters.map((c) => ({
              size: c.members.length,
              score: Number(c.score.toFixed(3)),
              flagged: c.flagged,
            })),
          ) +
          `; flagged ${report.flagged.map((m) => m.username).join(', ')}`,
      );
      expect(report.final).toBe(true);
      expect(report.flagged.map((m) => m.username).sort()).toEqual([...game.ringNames].sort());

      await page.goto(`${base}/admin`);
      const row = page.getByTestId(`history-${game.id}`);
      await row.getByText(`Winner: ${game.ringNames[0]}`).waitFor();
      await row.getByTestId('winner-flagged').waitFor();
      await settled(page);
      expect(await seriousViolations(page)).toEqual([]);
      await page.evaluate(() => window.scrollTo(0, 0));
      const { overflowAt360 } = await shootBothWidths(page, shots, 'history-flag', () =>
        settled(page),
      );
      expect(overflowAt360).toBe(false);

      await row.getByRole('button', { name: 'View Details' }).click();
      const dialog = page.getByRole('dialog');
      const section = dialog.getByTestId('fair-play-section');
      await section.getByText('Fair play', { exact: true }).waitFor();
      await section.getByText('Final', { exact: true }).waitFor();
      const flaggedCluster = section.locator(
        '[data-testid="fair-play-cluster"][data-flagged="true"]',
      );
      await flaggedCluster.first().waitFor();
      for (const name of game.ringNames) await flaggedCluster.getByText(name).first().waitFor();
      await flaggedCluster
        .getByText(/accounts share address prefix/)
        .first()
        .waitFor();
      await section.scrollIntoViewIfNeeded();
      await settled(page);
      expect(await seriousViolations(page, ['.app-header', '.admin-page', '.tab-bar'])).toEqual([]);
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        await settled(page);
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `details-fair-play-${size.width}.png`) });
      }
      expect(await hasHorizontalOverflow(page)).toBe(false);
      await page.close();
    } finally {
      await Promise.all(contexts.map((context) => context.close()));
    }
  }, 180_000);
});
