import { createHash } from 'node:crypto';
import { createLogger } from '@underdog/kit';
import { openWs, wsUrlOf, type WsTestClient } from '../../../gateway/test/realtime-clients';
import { createStandalone, type Standalone } from '../src';
import { browserAt, codeIn, mailTo, uniqueEmail, type Browser } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';

const LIVE_GAME = /* GraphQL */ `
  query ($id: ID!) {
    liveGame(tournamentId: $id) {
      phase
      roundNumber
      drawCommitment
    }
  }
`;

/**
 * Issue 37, acceptance 4 (its second half): the draw's commitment is readable through the public
 * API — GraphQL `liveGame` and the `/ws` snapshot, by a visitor — while round 1's voting is still
 * open, and the seed revealed at the end (the statistics' `draw.seed`) hashes to it.
 */
describe('the draw commitment through the public API (standalone)', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
  const sockets: WsTestClient[] = [];

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        RATE_LIMIT_REGISTRATIONS_PER_IP: '1000',
        TOURNAMENT_SCHEDULER_POLL_MS: '50',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
    });
    await standalone.group.start();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await standalone.group.stop();
  });

  async function verifiedUser(deviceId: string): Promise<Browser> {
    const client = browserAt(url, { deviceId });
    const email = uniqueEmail('drawer');
    expect(
      (await client.post('/api/register', { email, displayName: 'Drawer', password })).status,
    ).toBe(200);
    const code = codeIn(await mailTo(url, email));
    expect((await client.post('/api/verify-email', { code })).status).toBe(200);
    return client;
  }

  it('is in liveGame and in the /ws snapshot before round 1 ends, and the revealed seed hashes to it', async () => {
    const adminBrowser = browserAt(url, { deviceId: 'device-draw-admin' });
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    const created = await adminBrowser.post('/api/tournaments', {
      title: 'Commitment Cup',
      prize: '$5',
      startAt: new Date(Date.now() + 2000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const player = await verifiedUser('device-draw-ann');
    const join = 'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }';
    expect((await player.graphql(join, { id })).status).toBe(200);

    const socket = await openWs(wsUrlOf(url('/ws')), { origin: url('') });
    sockets.push(socket);
    socket.send({ type: 'subscribe_tournament', tournamentId: id });
    await socket.waitFor((m) => m.type === 'round_voting_started', { timeoutMs: 30_000 });

    // Round 1's voting is open (5 s): a visitor reads the commitment both ways.
    const visitor = browserAt(url, { deviceId: 'device-draw-visitor' });
    const read = await visitor.graphql(LIVE_GAME, { id });
    const live = (read.body as { data: { liveGame: Record<string, unknown> } }).data.liveGame;
    expect(live).toMatchObject({ phase: 'voting', roundNumber: 1 });
    const commitment = live.drawCommitment as string;
    expect(commitment).toMatch(/^[0-9a-f]{64}$/);
    socket.send({ type: 'subscribe_tournament', tournamentId: id });
    const snapshot = (await socket.waitFor(
      (m) =>
        m.type === 'game_state_update' &&
        (m as { gameState?: { roundNumber?: number } }).gameState?.roundNumber === 1,
    )) as unknown as { gameState: { phase: string; drawCommitment: string } };
    expect(snapshot.gameState).toMatchObject({ phase: 'voting', drawCommitment: commitment });

    // Nobody votes: the game ends after round 1 and the seed is revealed in the records.
    await socket.waitFor((m) => m.type === 'game_finished', { timeoutMs: 60_000 });
    const statistics = await visitor.get(`/api/tournaments/${id}/statistics`);
    const draw = (statistics.body as { draw: { commitment: string; seed: string } }).draw;
    expect(draw.commitment).toBe(commitment);
    expect(createHash('sha256').update(draw.seed).digest('hex')).toBe(commitment);
  }, 90_000);
});
