import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import { createStandalone, type Standalone } from '../src';
import { DEMO_RING_SIZE, ringIndices } from '../src/demo-population';
import { browserAt } from './support';

/*
 * Issue 28 §7: the demo includes a small ring among its bots, so a newcomer admin opening a demo
 * game's fair-play section sees a real report: the ring flagged, the honest bots (households and
 * a café among them, linked by their networks) not. The default demo: 200 bots, a ring of 8.
 * An e2e file (whole demo, real time, 200 sign-ups' argon2), so it runs in the server tiers' jest
 * beside the unit one (tools/test-tiers.mjs), which keeps the two runs about even.
 */
const admin = { email: 'admin@example.com', password: 'admin-password1' };
const BOTS = 200;

interface TournamentView {
  id: string;
  title: string;
  status: string;
}

interface Member {
  userId: string;
  username: string | null;
}

interface Report {
  final: boolean;
  participantCount: number;
  roundCount: number;
  flagged: Member[];
  clusters: Array<{
    members: Member[];
    flagged: boolean;
    score: number;
    evidence: Array<{ kind: string; text: string }>;
  }>;
}

describe('the standalone demo’s ring', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        TOURNAMENT_SCHEDULER_POLL_MS: '50',
        GAME_RESULTS_SECONDS: '1',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
      // The first live game starts once every bot has had time to sign up (argon2, 4 at a time).
      demo: { bots: BOTS, admin, nextGameAfterMs: 150_000 },
    });
    await standalone.group.start();
  });
  afterAll(() => standalone.group.stop());

  it('flags the ring (all 8) in the demo game’s fair-play report, and at most 2% of the honest bots', async () => {
    const ring = ringIndices(BOTS).map((index) => `bot_${String(index).padStart(3, '0')}_`);
    expect(ring).toHaveLength(DEMO_RING_SIZE);
    const isRing = (member: Member) => ring.some((prefix) => member.username?.startsWith(prefix));

    const browser = browserAt(url, { deviceId: 'demo-ring-admin' });
    expect((await browser.post('/api/login', admin)).status).toBe(200);
    const blitz = await waitFor(
      async () => {
        const tournaments = (await browser.get('/api/tournaments')).body as TournamentView[];
        return tournaments.find((t) => t.title.startsWith('Demo Blitz'));
      },
      { message: 'the Demo Blitz scheduled', timeoutMs: 60_000, intervalMs: 500 },
    );
    // The report as an admin sees it once the game is over (or, if ties keep two bots going,
    // after a few rounds: it is live).
    const report = await waitFor(
      async () => {
        const answer = await browser.get(`/api/admin/tournaments/${blitz.id}/fair-play`);
        expect(answer.status).toBe(200);
        const read = answer.body as Report;
        return (read.final || read.roundCount >= 4) && read;
      },
      {
        message: 'the demo game’s report, final or after 4 rounds',
        timeoutMs: 390_000,
        intervalMs: 2_000,
      },
    );
    const honest = report.participantCount - DEMO_RING_SIZE;
    const ringFlagged = report.flagged.filter(isRing).length;
    const honestFlagged = report.flagged.filter((member) => !isRing(member));
    const ringCluster = report.clusters.find((cluster) => cluster.members.some(isRing));
    console.log(
      `demo game: ${report.participantCount} participants, ${report.roundCount} rounds` +
        `${report.final ? ' (final)' : ' (live)'}, ${report.clusters.length} linked groups; ` +
        `ring flagged ${ringFlagged}/${DEMO_RING_SIZE}, honest flagged ${honestFlagged.length}/${honest}; ` +
        `ring score ${ringCluster?.score.toFixed(2)}: ${ringCluster?.evidence.map((e) => e.text).join(' | ')}`,
    );
    expect(report.participantCount).toBeGreaterThanOrEqual(100);
    expect(report.roundCount).toBeGreaterThanOrEqual(1);
    expect(ringFlagged).toBe(DEMO_RING_SIZE);
    expect(honestFlagged.length).toBeLessThanOrEqual(Math.floor(honest * 0.02));
    // One ring flagged: the honest groups linked by their networks are listed, not flagged.
    expect(report.clusters.filter((cluster) => cluster.flagged)).toHaveLength(1);
    expect(report.clusters.length).toBeGreaterThan(1);
    expect(ringCluster?.evidence.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['sharedAddressPrefix', 'sharedUserAgent', 'registrationBurst']),
    );
  }, 600_000);
});
