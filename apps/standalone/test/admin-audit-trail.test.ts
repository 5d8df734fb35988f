import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import { createStandalone, type Standalone } from '../src';
import { browserAt, codeIn, mailTo, uniqueEmail, type Browser } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };

interface AuditRow {
  action: string;
  actor: { userId: string; username: string | null };
  tournamentId: string | null;
  summary: string;
  clientAddress: string | null;
}

/**
 * Issue 37 point 7 (ADR 11): the audit log keeps the refused attempts at admin operations — who,
 * if anyone, from which address, at what — and every read of a fair-play report. Through the
 * whole standalone process (gateway, tournament service, in-memory bus), read back over REST
 * and GraphQL as an admin sees it.
 */
describe('the audit log of refused admin attempts and fair-play reads (standalone)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        RATE_LIMIT_REGISTRATIONS_PER_IP: '1000',
        // One trusted hop: the visitor below names its address in X-Forwarded-For.
        TRUST_PROXY: '1',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
  });
  afterAll(async () => {
    await standalone.group.stop();
  });

  async function verifiedPlayer(): Promise<{ browser: Browser; username: string }> {
    const browser = browserAt(url, { deviceId: 'device-audit-player' });
    const email = uniqueEmail('prober');
    const registered = await browser.post('/api/register', {
      email,
      displayName: 'Prober',
      password: 'correct-horse1',
    });
    expect(registered.status).toBe(200);
    const code = codeIn(await mailTo(url, email));
    expect((await browser.post('/api/verify-email', { code })).status).toBe(200);
    const me = await browser.get('/api/user');
    return { browser, username: (me.body as { username: string }).username };
  }

  async function auditRows(adminBrowser: Browser): Promise<AuditRow[]> {
    const page = await adminBrowser.get('/api/admin/audit?limit=200');
    expect(page.status).toBe(200);
    return (page.body as { actions: AuditRow[] }).actions;
  }

  it('records a visitor refused, a player refused and an admin reading the report, with addresses', async () => {
    const adminBrowser = browserAt(url, { deviceId: 'device-audit-admin' });
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    const created = await adminBrowser.post('/api/tournaments', {
      title: 'Audited Cup',
      prize: '$5',
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };

    // A visitor through the trusted hop, from 198.51.100.7.
    const visitorAnswer = await fetch(url(`/api/admin/tournaments/${id}/fair-play`), {
      headers: { 'x-forwarded-for': '198.51.100.7', 'x-device-id': 'device-audit-visitor' },
    });
    expect(visitorAnswer.status).toBe(401);

    // A signed-in player: the report over GraphQL, and a disqualification (the gateway's check).
    const { browser: player, username } = await verifiedPlayer();
    const refusedRead = await player.graphql(
      'query ($id: ID!) { tournamentFairPlay(tournamentId: $id) { final } }',
      { id },
    );
    const errors = (refusedRead.body as { errors?: { extensions?: { code?: string } }[] }).errors;
    expect(errors?.[0]?.extensions?.code).toBe('ADMIN_ONLY');
    const refusedDisqualification = await player.post(
      `/api/admin/tournaments/${id}/participants/someone/disqualify`,
      { reason: 'probing' },
    );
    expect(refusedDisqualification.status).toBe(403);

    // The admin reads the report.
    expect((await adminBrowser.get(`/api/admin/tournaments/${id}/fair-play`)).status).toBe(200);

    const rows = await waitFor(
      async () => {
        const all = await auditRows(adminBrowser);
        const ours = all.filter((row) => row.tournamentId === id);
        return ours.length >= 4 ? ours : undefined;
      },
      { message: 'the four audited rows of the tournament', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'attemptRefused',
          actor: { userId: '', username: null },
          clientAddress: '198.51.100.7',
          summary: 'Refused tournament.getFairPlayReport to a visitor (UNAUTHENTICATED)',
        }),
        expect.objectContaining({
          action: 'attemptRefused',
          actor: expect.objectContaining({ username }) as unknown,
          summary: `Refused tournament.getFairPlayReport to ${username} (FORBIDDEN)`,
        }),
        expect.objectContaining({
          action: 'attemptRefused',
          actor: expect.objectContaining({ username }) as unknown,
          summary: `Refused game.disqualifyParticipant to ${username} (FORBIDDEN)`,
        }),
        expect.objectContaining({
          action: 'fairPlayReportRead',
          actor: expect.objectContaining({ username: 'admin' }) as unknown,
          summary: `Read the fair-play report of tournament ${id}`,
        }),
      ]),
    );
    // Without a forwarded address, the peer's own (loopback here).
    for (const row of rows.filter((each) => each.actor.userId !== '')) {
      expect(row.clientAddress).toMatch(/127\.0\.0\.1/);
    }

    // GraphQL lists the same rows with the address.
    const listed = await adminBrowser.graphql(
      '{ adminActions(limit: 200) { actions { action tournamentId clientAddress } } }',
    );
    const actions = (
      listed.body as {
        data: { adminActions: { actions: { action: string; tournamentId: string | null }[] } };
      }
    ).data.adminActions.actions.filter((action) => action.tournamentId === id);
    expect(actions).toContainEqual({
      action: 'attemptRefused',
      tournamentId: id,
      clientAddress: '198.51.100.7',
    });
  }, 60_000);
});
