// Issue 28 §4 and acceptance 2, end to end against the bundled standalone process (the engine,
// the tournament service's audit log and the gateway as `npm start` runs them):
// - over REST and GraphQL: an admin disqualifies a participant during round 1 (a visitor gets
//   401 and a player 403 on every new route); the participant goes out at the end of round 1,
//   hears it alone on /ws with the reason, and the disqualification shows in the records (the
//   details' round 1), the statistics and the audit log;
// - in Chromium: the admin's Disqualify action in the details dialog of a live game, and the
//   player's own screen telling them they are out and why (screenshots at 1280 and 360 px).
import type { APIRequestContext, Browser, BrowserContext, Page } from 'playwright-core';
import { waitFor } from '@underdog/test-support';
import WebSocket from 'ws';
import {
  ADMIN,
  DESKTOP,
  PHONE,
  artifactsDir,
  ensureChromium,
  hasHorizontalOverflow,
  launchChromium,
  loginAs,
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
  shots = artifactsDir('disqualification');
  // Short results: a one-round game ends soon after its round.
  app = await startStandalone({ DEMO: 'off', GAME_RESULTS_SECONDS: '2' });
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

async function adminApi(context: BrowserContext): Promise<Api> {
  const admin = apiOf(context.request, 'e2e-dq-admin');
  await admin.graphql('mutation($e:String!,$p:String!){login(email:$e,password:$p){id}}', {
    e: ADMIN.email,
    p: ADMIN.password,
  });
  return admin;
}

/** A tournament starting in a few seconds, joined by every player; answers its id. */
async function liveTournament(admin: Api, players: Api[], title: string, roundTimeSeconds: number) {
  const { createTournament } = await admin.graphql<{ createTournament: { id: string } }>(
    'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
    {
      i: {
        title,
        prize: '$100',
        startAt: new Date(Date.now() + 4_000).toISOString(),
        roundTimeSeconds,
      },
    },
  );
  const id = createTournament.id;
  for (const player of players) {
    await player.graphql('mutation($id:ID!){joinTournament(tournamentId:$id){isParticipant}}', {
      id,
    });
  }
  return id;
}

/** A `/ws` socket signed in with the context's session cookie, subscribed to the tournament. */
async function wsOf(context: BrowserContext, tournamentId: string) {
  const cookie = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ');
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, {
    headers: { cookie, origin: base },
  });
  const messages: { type: string; [field: string]: unknown }[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId }));
  await waitFor(() => messages.some((m) => m.type === 'game_state_update'), {
    message: 'the snapshot on /ws',
    timeoutMs: 10_000,
  });
  return { socket, messages };
}

interface Standing {
  username: string;
  isEliminated: boolean;
  eliminatedInRound: number | null;
  isDisqualified: boolean;
  disqualificationReason: string | null;
}

const REASON = 'One of a ring of accounts (shared network, covering votes)';

describe('disqualification end to end', () => {
  it('over REST and GraphQL: out at the end of round 1, in the records, the statistics and the audit log; 401/403 for others', async () => {
    const contexts = await Promise.all(Array.from({ length: 5 }, () => browser.newContext()));
    const sockets: WebSocket[] = [];
    try {
      const admin = await adminApi(contexts[0]!);
      const apis = contexts.slice(1).map((context, i) => apiOf(context.request, `e2e-dq-${i}`));
      const [ann, bob, cat, cheat] = apis as [Api, Api, Api, Api];
      const users = [];
      for (const [i, api] of apis.entries()) {
        users.push(await verifiedUser(api, ['Ann', 'Bob', 'Cat', 'Cheat'][i]!));
      }
      const cheatUser = users[3]!;
      const id = await liveTournament(admin, apis, 'Fair Cup', 20);
      const path = `/api/admin/tournaments/${id}/participants/${cheatUser.id}/disqualify`;
      const round1 = await votingIn(admin, id, 1);
      const option = (n: number) => round1.images[n]!.id;
      const cheatSocket = await wsOf(contexts[4]!, id);
      const annSocket = await wsOf(contexts[1]!, id);
      sockets.push(cheatSocket.socket, annSocket.socket);

      // Nobody but an admin: 401 for a visitor, 403 for a verified player, REST and GraphQL.
      const anonymous = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'X-Device-ID': 'e2e-dq-anonymous', 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: REASON }),
      });
      expect(anonymous.status).toBe(401);
      expect(await bob.post(path, { reason: REASON })).toMatchObject({
        status: 403,
        body: { code: 'ADMIN_ONLY' },
      });
      const refused = await bob.answer(
        'mutation($t:ID!,$u:ID!,$r:String!){disqualifyParticipant(tournamentId:$t,userId:$u,reason:$r){duringGame}}',
        { t: id, u: cheatUser.id, r: REASON },
      );
      expect(refused.errors?.[0]?.extensions?.code).toBe('ADMIN_ONLY');
      expect((await bob.get('/api/admin/audit')).status).toBe(403);

      // The admin: a bodiless request is a clear 400, an unknown participant 404.
      expect(await admin.post(path)).toMatchObject({
        status: 400,
        body: { message: 'Request body must be a JSON object', code: 'BAD_REQUEST' },
      });
      expect(
        (
          await admin.post(`/api/admin/tournaments/${id}/participants/nobody/disqualify`, {
            reason: REASON,
          })
        ).status,
      ).toBe(404);

      // During round 1 over REST: out at its end. Again over GraphQL: the same effect.
      expect(await admin.post(path, { reason: REASON })).toEqual({
        status: 200,
        body: {
          tournamentId: id,
          userId: cheatUser.id,
          reason: REASON,
          duringGame: true,
          effectiveRound: 1,
          winner: null,
        },
      });
      const again = await admin.graphql<{
        disqualifyParticipant: { duringGame: boolean; effectiveRound: number };
      }>(
        'mutation($t:ID!,$u:ID!,$r:String!){disqualifyParticipant(tournamentId:$t,userId:$u,reason:$r){duringGame effectiveRound}}',
        { t: id, u: cheatUser.id, r: REASON },
      );
      expect(again.disqualifyParticipant).toEqual({ duringGame: true, effectiveRound: 1 });
      // Their snapshot says so at once; they go out at the round's end.
      const { liveGame } = await cheat.graphql<{
        liveGame: { player: { isEliminated: boolean; disqualificationReason: string | null } };
      }>(
        'query($id:ID!){liveGame(tournamentId:$id){player{isEliminated disqualificationReason}}}',
        {
          id,
        },
      );
      expect(liveGame.player).toEqual({ isEliminated: false, disqualificationReason: REASON });

      // Round 1: ann alone on option 1 and the cheat alone on option 3 tie as least popular;
      // bob and cat share option 2. Without the disqualification ann and the cheat would go on.
      await castVote(ann, id, 1, option(0));
      await castVote(bob, id, 1, option(1));
      await castVote(cat, id, 1, option(1));
      await castVote(cheat, id, 1, option(2)).catch(() => undefined);
      await tournamentFinished(admin, id);

      // The player alone heard it on /ws, with the reason, at the end of round 1.
      const notice = cheatSocket.messages.find((m) => m.type === 'player_disqualified');
      expect(notice).toMatchObject({ tournamentId: id, roundNumber: 1, reason: REASON });
      expect(annSocket.messages.map((m) => m.type)).not.toContain('player_disqualified');

      // The statistics (REST and GraphQL), the records (details' round 1) and the audit log.
      const statistics = await fetch(`${base}/api/tournaments/${id}/statistics`, {
        headers: { 'X-Device-ID': 'e2e-dq-visitor' },
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as {
          winner: { username: string } | null;
          disqualifiedCount: number;
          participants: Standing[];
        },
      }));
      expect(statistics.status).toBe(200);
      expect(statistics.body.disqualifiedCount).toBe(1);
      expect(statistics.body.winner).toEqual({ username: users[0]!.username });
      expect(statistics.body.participants.find((p) => p.username === cheatUser.username)).toEqual({
        username: cheatUser.username,
        isEliminated: true,
        eliminatedInRound: 1,
        isOfflinePlayer: false,
        isDisqualified: true,
        // A visitor sees that they were disqualified, not the administrator's words about them.
        disqualificationReason: null,
      });
      const viaGraphql = await admin.graphql<{
        tournamentStatistics: { disqualifiedCount: number; participants: Standing[] };
        tournamentDetails: {
          rounds: {
            roundNumber: number;
            eliminatedPlayers: { username: string; disqualificationReason: string | null }[];
          }[];
        };
      }>(
        `query($id:ID!){
          tournamentStatistics(tournamentId:$id){disqualifiedCount participants{username isDisqualified disqualificationReason eliminatedInRound}}
          tournamentDetails(tournamentId:$id){rounds{roundNumber eliminatedPlayers{username disqualificationReason}}}
        }`,
        { id },
      );
      expect(viaGraphql.tournamentStatistics.disqualifiedCount).toBe(1);
      expect(viaGraphql.tournamentStatistics.participants.filter((p) => p.isDisqualified)).toEqual([
        expect.objectContaining({
          username: cheatUser.username,
          disqualificationReason: REASON,
          eliminatedInRound: 1,
        }),
      ]);
      const [firstRound] = viaGraphql.tournamentDetails.rounds;
      expect(firstRound?.roundNumber).toBe(1);
      expect(firstRound?.eliminatedPlayers).toContainEqual({
        username: cheatUser.username,
        disqualificationReason: REASON,
      });
      const details = await admin.get<{
        rounds: {
          eliminatedPlayers: { username: string; disqualificationReason: string | null }[];
        }[];
      }>(`/api/admin/tournaments/${id}/details`);
      expect(details.body.rounds[0]?.eliminatedPlayers).toContainEqual(
        expect.objectContaining({ username: cheatUser.username, disqualificationReason: REASON }),
      );

      const isThisDisqualification = (a: {
        action: string;
        tournamentId: string | null;
        targetUserId: string | null;
      }) =>
        a.action === 'participantDisqualified' &&
        a.tournamentId === id &&
        a.targetUserId === cheatUser.id;
      let audit:
        | {
            actions: {
              action: string;
              tournamentId: string | null;
              targetUserId: string | null;
              summary: string;
            }[];
          }
        | undefined;
      await waitFor(
        async () => {
          const answer = await admin.get<NonNullable<typeof audit>>('/api/admin/audit');
          expect(answer.status).toBe(200);
          audit = answer.body;
          return audit.actions.some(isThisDisqualification);
        },
        { message: 'the disqualification in the audit log', timeoutMs: 15_000, intervalMs: 300 },
      );
      expect(audit?.actions.filter(isThisDisqualification).length).toBeGreaterThanOrEqual(1);
      const { adminActions } = await admin.graphql<{
        adminActions: {
          actions: { action: string; tournamentId: string | null; targetUserId: string | null }[];
        };
      }>('{adminActions(limit:50){actions{action tournamentId targetUserId}}}');
      expect(adminActions.actions.some(isThisDisqualification)).toBe(true);
      console.log(
        `disqualification e2e: ${cheatUser.username} out at the end of round 1; winner ` +
          `${statistics.body.winner?.username}; audit: ` +
          audit?.actions
            .filter(isThisDisqualification)
            .map((a) => a.summary)
            .join(' | '),
      );
    } finally {
      for (const socket of sockets) socket.close();
      await Promise.all(contexts.map((context) => context.close()));
    }
  }, 180_000);

  it("in Chromium: the admin's Disqualify action in a live game's details, and the player's own notice (1280 and 360 px)", async () => {
    const adminContext = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    const players = await Promise.all(
      Array.from({ length: 3 }, () =>
        browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' }),
      ),
    );
    try {
      const admin = await adminApi(adminContext);
      const apis = players.map((context, i) => apiOf(context.request, `e2e-dq-ui-${i}`));
      const [ann, bob, cheat] = apis as [Api, Api, Api];
      const users = [];
      for (const [i, api] of apis.entries()) {
        users.push(await verifiedUser(api, ['Ada', 'Ben', 'Rigg'][i]!));
      }
      const cheatUser = users[2]!;
      // Long enough a round for the admin to act in it through the dashboard.
      const id = await liveTournament(admin, apis, 'Screen Cup', 45);

      const playerPage: Page = await players[2]!.newPage();
      await playerPage.goto(`${base}/game/${id}`);
      const round1 = await votingIn(admin, id, 1);
      await castVote(cheat, id, 1, round1.images[2]!.id);

      const page = await adminContext.newPage();
      await loginAs(page, base);
      await page.goto(`${base}/admin`);
      const row = page.getByTestId(`tournament-${id}`);
      // The list shows the tournament live (and with it View Details) once it has heard so.
      const details = row.getByRole('button', { name: 'View Details' });
      let looks = 0;
      await waitFor(
        async () => {
          if (await details.isVisible()) return true;
          looks += 1;
          if (looks % 5 === 0) await page.reload();
          return false;
        },
        { message: 'View Details on the live tournament', timeoutMs: 30_000, intervalMs: 1_000 },
      );
      await details.click();
      const dialog = page.getByRole('dialog');
      const member = dialog.locator(
        `[data-testid="fair-play-member"][data-name="${cheatUser.username}"]`,
      );
      // Signals travel through the bus: the live report lists the players once they arrive
      // (the dialog is opened again to read the report again).
      await waitFor(
        async () => {
          if (await member.count()) return true;
          await dialog.getByRole('button', { name: 'Close' }).click();
          await row.getByRole('button', { name: 'View Details' }).click();
          return false;
        },
        {
          message: 'the live fair-play report listing the player',
          timeoutMs: 30_000,
          intervalMs: 1_000,
        },
      );
      await member
        .first()
        .getByRole('button', { name: `Disqualify ${cheatUser.username}` })
        .click();
      const form = page.getByRole('dialog', { name: `Disqualify ${cheatUser.username}` });
      await form.getByLabel('Reason (shown to the player)').fill(REASON);
      await settled(page);
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        await settled(page);
        await page.screenshot({ path: `${shots}/admin-disqualify-${size.width}.png` });
      }
      await page.setViewportSize(DESKTOP);
      await form.getByRole('button', { name: 'Disqualify' }).click();
      await page.getByText(`${cheatUser.username} goes out at the end of round 1`).waitFor();

      // Ada alone on option 1 ties the cheat's option 3 as least popular (Ben does not vote):
      // without the disqualification both would go on. The round ends at its deadline.
      await castVote(ann, id, 1, round1.images[0]!.id);
      void bob;
      const notice = playerPage.getByTestId('disqualified-notice');
      await notice.getByText(`Reason: ${REASON}`).waitFor({ timeout: 90_000 });
      await notice.getByText('You went out at the end of round 1.').waitFor();
      expect(await seriousViolations(playerPage)).toEqual([]);
      await playerPage.evaluate(() => window.scrollTo(0, 0));
      const { overflowAt360 } = await shootBothWidths(playerPage, shots, 'player-disqualified');
      expect(overflowAt360).toBe(false);

      // The details dialog lists them with the reason once the game is over, and so does the
      // public statistics view.
      await tournamentFinished(admin, id);
      await playerPage.goto(`${base}/game/${id}?mode=results`);
      const stats = playerPage.getByTestId('statistics-disqualified');
      await stats.getByText('Disqualified players: 1').waitFor();
      await stats.getByText(`${cheatUser.username}: ${REASON}`).waitFor();
      await page.goto(`${base}/admin`);
      await page.getByTestId(`history-${id}`).getByRole('button', { name: 'View Details' }).click();
      const listed = page.getByRole('dialog').getByTestId('details-disqualified');
      await listed.getByText(cheatUser.username).waitFor();
      await listed.getByText(`Reason: ${REASON}`).waitFor();
      await listed.scrollIntoViewIfNeeded();
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        await settled(page);
        await listed.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${shots}/details-disqualified-${size.width}.png` });
      }
      expect(await hasHorizontalOverflow(page)).toBe(false);
    } finally {
      await Promise.all([adminContext, ...players].map((context) => context.close()));
    }
  }, 240_000);
});
