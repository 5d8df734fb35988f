// Issue 28 §4: every admin action is an event on admin.actions and listed in the dashboard
// (who, when, what); a finished tournament's prize is confirmed paid once, shown in the history
// and itself audited. Against the bundled standalone process (the in-memory bus): REST and
// GraphQL end to end, 401/403 on every new route, then the dashboard in Chromium (the audit list
// and the Paid mark, screenshots at 1280 and 360 px).
import { waitFor, type WaitOptions } from '@underdog/test-support';
import type { Browser } from 'playwright-core';
import {
  DESKTOP,
  artifactsDir,
  ensureChromium,
  gql,
  gqlData,
  hasHorizontalOverflow,
  launchChromium,
  loginAs,
  registerVerified,
  rest,
  seriousViolations,
  settled,
  shootBothWidths,
  startStandalone,
  type Standalone,
} from './e2e-support';

let app: Standalone;
let base: string;
let browser: Browser;
let shots: string;

beforeAll(async () => {
  ensureChromium();
  shots = artifactsDir('audit');
  app = await startStandalone({ DEMO: 'off' });
  base = app.base;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

interface AdminActionJson {
  id: string;
  action: string;
  actor: { userId: string; username: string | null };
  occurredAt: string;
  tournamentId: string | null;
  advertisementId: string | null;
  targetUserId: string | null;
  summary: string;
  requestId?: string | null;
  clientAddress?: string | null;
}
interface AuditPageJson {
  actions: AdminActionJson[];
  nextBefore: string | null;
}
interface HistoryJson {
  tournament: { id: string };
  winner?: { username: string };
  prizePayment: { paidAt: string; paidBy: { username: string | null } } | null;
}

/** How this suite polls the server for something to happen: every 250 ms, for a minute at most. */
function poll(message: string, timeoutMs = 60_000): WaitOptions {
  return { message, timeoutMs, intervalMs: 250 };
}

describe('the admin audit log and prize payments', () => {
  it('audits every admin change over REST and GraphQL, confirms a prize once and shows both in the dashboard', async () => {
    const adminContext = await browser.newContext();
    const playerContext = await browser.newContext();
    const visitorContext = await browser.newContext();
    try {
      const admin = await adminContext.newPage();
      await loginAs(admin, base);
      const { me } = await gqlData<{ me: { id: string; username: string } }>(
        admin,
        '{me{id username}}',
      );
      const player = await playerContext.newPage();
      const winner = await registerVerified(player, base, {
        email: `winner-${Date.now()}@e2e.local`,
        displayName: 'Prize Winner',
        password: 'password123',
      });
      const visitor = await visitorContext.newPage();
      await visitor.goto(`${base}/`);

      // 401 for a visitor and 403 for a player on every new route, REST and GraphQL.
      for (const [page, status, code] of [
        [visitor, 401, 'UNAUTHENTICATED'],
        [player, 403, 'ADMIN_ONLY'],
      ] as const) {
        expect((await rest(page, 'GET', '/api/admin/audit')).status).toBe(status);
        expect((await rest(page, 'POST', '/api/admin/tournaments/any/prize-paid')).status).toBe(
          status,
        );
        const listed = await gql(page, '{adminActions{actions{id}}}');
        expect(listed.errors?.[0]?.extensions?.code).toBe(code);
        const confirmed = await gql(
          page,
          'mutation{confirmPrizePaid(tournamentId:"any"){alreadyConfirmed}}',
        );
        expect(confirmed.errors?.[0]?.extensions?.code).toBe(code);
        const history = await gql(page, '{tournamentHistory{prizePayment{paidAt}}}');
        expect(history.errors?.[0]?.extensions?.code).toBe(code);
      }

      // Changes over REST ...
      const soon = (ms: number) => new Date(Date.now() + ms).toISOString();
      const created = await rest<{ id: string }>(admin, 'POST', '/api/tournaments', {
        title: 'Audit Cup',
        prize: '$25',
        startAt: soon(3_000),
        roundTimeSeconds: 5,
      });
      expect(created.status).toBe(201);
      const cup = created.body.id;
      const updated = await rest(admin, 'PUT', `/api/tournaments/${cup}`, {
        title: 'Audit Cup',
        prize: '$30',
        startAt: soon(3_000),
        roundTimeSeconds: 5,
      });
      expect(updated.status).toBe(200);
      const ad = await rest<{ id: string }>(admin, 'POST', '/api/admin/advertisements', {
        title: 'Audit Ad',
        type: 'text',
        content: 'Buy things',
      });
      expect(ad.status).toBe(201);
      // ... and over GraphQL.
      const { createTournament: empty } = await gqlData<{ createTournament: { id: string } }>(
        admin,
        'mutation($i:TournamentInput!){createTournament(input:$i){id}}',
        { i: { title: 'Nobody Wins', startAt: soon(3_000), roundTimeSeconds: 5 } },
      );
      await gqlData(
        admin,
        'mutation($id:ID!,$i:UpdateAdvertisementInput!){updateAdvertisement(id:$id,input:$i){id}}',
        { id: ad.body.id, i: { title: 'Audit Ad 2' } },
      );
      await gqlData(admin, 'mutation($id:ID!){deleteAdvertisement(id:$id)}', { id: ad.body.id });

      // Not finished yet: 409, nothing audited.
      const early = await rest<{ code: string }>(
        admin,
        'POST',
        `/api/admin/tournaments/${cup}/prize-paid`,
      );
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('TOURNAMENT_NOT_FINISHED');
      expect(
        (await rest<{ code: string }>(admin, 'POST', '/api/admin/tournaments/nope/prize-paid'))
          .status,
      ).toBe(404);

      // The player wins the cup alone (the only voter of round 1); nobody votes in the other.
      for (const id of [cup, empty.id]) {
        await gqlData(
          player,
          'mutation($id:ID!){joinTournament(tournamentId:$id){isParticipant}}',
          {
            id,
          },
        );
      }
      const images = await waitFor(async () => {
        const { liveGame } = await gqlData<{
          liveGame: { phase: string; roundNumber: number; images: { id: string }[] } | null;
        }>(player, 'query($id:ID!){liveGame(tournamentId:$id){phase roundNumber images{id}}}', {
          id: cup,
        });
        return liveGame?.phase === 'voting' && liveGame.roundNumber === 1
          ? liveGame.images
          : undefined;
      }, poll('round 1 of the cup'));
      await gqlData(
        player,
        'mutation($id:ID!,$r:Int!,$i:ID!){castVote(tournamentId:$id,roundNumber:$r,imageId:$i){imageId}}',
        { id: cup, r: 1, i: images[0]!.id },
      );
      const finished = async (id: string) => {
        const { tournament } = await gqlData<{ tournament: { status: string } }>(
          admin,
          'query($id:ID!){tournament(id:$id){status}}',
          { id },
        );
        return tournament.status === 'finished' ? true : undefined;
      };
      await waitFor(() => finished(cup), poll('the cup finished', 90_000));
      await waitFor(() => finished(empty.id), poll('the empty tournament finished', 90_000));

      const noWinner = await waitFor(async () => {
        const answer = await rest<{ code: string }>(
          admin,
          'POST',
          `/api/admin/tournaments/${empty.id}/prize-paid`,
        );
        return answer.body.code === 'NO_WINNER' ? answer : undefined;
      }, poll('the empty game recorded'));
      expect(noWinner.status).toBe(409);

      // The dashboard: the history row of the cup offers "Mark prize paid"; confirm it.
      await admin.setViewportSize(DESKTOP);
      await admin.goto(`${base}/admin`);
      const row = admin.getByTestId(`history-${cup}`);
      await row.getByText(`Winner: ${winner.username}`).waitFor();
      await expect(
        admin.getByTestId(`history-${empty.id}`).getByTestId('mark-prize-paid').count(),
      ).resolves.toBe(0);
      await row.getByTestId('mark-prize-paid').click();
      await admin.getByRole('button', { name: 'Confirm' }).click();
      const mark = row.getByTestId('prize-paid');
      await mark.waitFor();
      expect(await mark.textContent()).toContain(`confirmed by ${me.username}`);

      // Idempotent: a repeat answers the first confirmation, and is not audited again.
      const repeat = await rest<{ alreadyConfirmed: boolean; payment: { paidAt: string } }>(
        admin,
        'POST',
        `/api/admin/tournaments/${cup}/prize-paid`,
      );
      expect(repeat.status).toBe(200);
      expect(repeat.body.alreadyConfirmed).toBe(true);
      const history = await rest<HistoryJson[]>(admin, 'GET', '/api/admin/tournaments/history');
      const cupRow = history.body.find((item) => item.tournament.id === cup);
      expect(cupRow?.prizePayment).toMatchObject({
        paidAt: repeat.body.payment.paidAt,
        paidBy: { username: me.username },
      });
      expect(history.body.find((item) => item.tournament.id === empty.id)?.prizePayment).toBe(null);
      const { tournamentHistory } = await gqlData<{
        tournamentHistory: {
          tournament: { id: string };
          prizePayment: { paidBy: { username: string } } | null;
        }[];
      }>(admin, '{tournamentHistory{tournament{id} prizePayment{paidBy{username}}}}');
      expect(tournamentHistory.find((item) => item.tournament.id === cup)?.prizePayment).toEqual({
        paidBy: { username: me.username },
      });

      // The audit log: every change above, who and what, newest first — over REST ...
      const expected = [
        ['prizePaidConfirmed', cup, null],
        ['advertisementDeleted', null, ad.body.id],
        ['advertisementUpdated', null, ad.body.id],
        ['tournamentCreated', empty.id, null],
        ['advertisementCreated', null, ad.body.id],
        ['tournamentUpdated', cup, null],
        ['tournamentCreated', cup, null],
      ];
      // The 401s and 403s above are in it too (issue 37): five routes, a visitor and a player.
      const isChange = (action: AdminActionJson) => action.action !== 'attemptRefused';
      const audit = await waitFor(async () => {
        const answer = await rest<AuditPageJson>(admin, 'GET', '/api/admin/audit?limit=50');
        return answer.body.actions.filter(isChange).length >= expected.length
          ? answer.body
          : undefined;
      }, poll('the audit log complete'));
      const changes = audit.actions.filter(isChange);
      expect(
        changes.map((action) => [action.action, action.tournamentId, action.advertisementId]),
      ).toEqual(expected);
      for (const action of changes) {
        expect(action.actor).toEqual({ userId: me.id, username: me.username });
        expect(Date.parse(action.occurredAt)).toBeGreaterThan(Date.now() - 10 * 60_000);
      }
      const refusals = audit.actions.filter((action) => !isChange(action));
      expect(refusals).toHaveLength(10);
      expect(refusals.filter((action) => action.actor.userId === winner.id)).toHaveLength(5);
      expect(refusals.filter((action) => action.actor.userId === '')).toHaveLength(5);
      expect(changes[0]?.summary).toContain(`paid to ${winner.username}`);
      expect(changes[0]?.targetUserId).toBe(winner.id);
      expect(changes[6]?.summary).toBe('Created tournament "Audit Cup"');
      // ... a page at a time ...
      const firstTwo = await rest<AuditPageJson>(admin, 'GET', '/api/admin/audit?limit=2');
      expect(firstTwo.body.actions.map((a) => a.id)).toEqual(
        audit.actions.slice(0, 2).map((a) => a.id),
      );
      const nextTwo = await rest<AuditPageJson>(
        admin,
        'GET',
        `/api/admin/audit?limit=2&before=${encodeURIComponent(firstTwo.body.nextBefore ?? '')}`,
      );
      expect(nextTwo.body.actions.map((a) => a.id)).toEqual(
        audit.actions.slice(2, 4).map((a) => a.id),
      );
      expect((await rest(admin, 'GET', '/api/admin/audit?limit=0')).status).toBe(400);
      // ... and over GraphQL.
      const { adminActions } = await gqlData<{ adminActions: AuditPageJson }>(
        admin,
        '{adminActions(limit:50){actions{id action actor{userId username} occurredAt tournamentId advertisementId targetUserId summary} nextBefore}}',
      );
      expect(adminActions.actions).toEqual(
        audit.actions.map(
          ({ requestId: _requestId, clientAddress: _clientAddress, ...fields }) => fields,
        ),
      );

      // The dashboard's audit list shows them (refreshed by the confirmation).
      const log = admin.getByTestId('audit-log');
      await log.getByText('Prize paid').first().waitFor();
      await expect(log.getByTestId('audit-entry').count()).resolves.toBe(audit.actions.length);
      await log.getByText('Created tournament "Audit Cup"').waitFor();
      // A visitor's refused attempt is shown as one, by a visitor, not as a nameless row.
      const refusedByVisitor = log
        .locator('[data-action="attemptRefused"]')
        .filter({ hasText: 'Visitor (not signed in)' });
      await expect(refusedByVisitor.count()).resolves.toBeGreaterThan(0);
      await expect(refusedByVisitor.first().getByText('Refused attempt').count()).resolves.toBe(1);
      await settled(admin);
      expect(await seriousViolations(admin, ['.app-header', '.tab-bar'])).toEqual([]);
      await row.scrollIntoViewIfNeeded();
      const { overflowAt360 } = await shootBothWidths(admin, shots, 'admin-audit', () =>
        settled(admin),
      );
      expect(overflowAt360).toBe(false);
      expect(await hasHorizontalOverflow(admin)).toBe(false);
    } finally {
      await Promise.all([adminContext, playerContext, visitorContext].map((c) => c.close()));
    }
  }, 240_000);
});
