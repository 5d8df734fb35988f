import { createLogger } from '@underdog/kit';
import { openWs, wsUrlOf, type WsTestClient } from '../../../gateway/test/realtime-clients';
import { createStandalone, type Standalone } from '../src';
import { browserAt, codeIn, mailTo, uniqueEmail, type Answer, type Browser } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';

const STATISTICS = /* GraphQL */ `
  query ($id: ID!) {
    tournamentStatistics(tournamentId: $id) {
      tournament {
        status
      }
      totalRounds
      winner {
        username
      }
    }
  }
`;

interface Statistics {
  tournament: { status: string };
  totalRounds: number;
  winner: { username: string } | null;
}

/**
 * Issue 26: a player who presses VIEW RESULTS as soon as the game ends sees the winner — the
 * tournament's finished state and its winner become visible together.
 */
describe('the end of a game (standalone)', () => {
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
        GAME_RESULTS_SECONDS: '1',
        // The records' default delay (1 s) is what made the winner late.
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
    const email = uniqueEmail('player');
    expect(
      (await client.post('/api/register', { email, displayName: 'Player', password })).status,
    ).toBe(200);
    const code = codeIn(await mailTo(url, email));
    expect((await client.post('/api/verify-email', { code })).status).toBe(200);
    return client;
  }

  it('names the winner in the statistics (REST and GraphQL), the history and the details in the same tick as game_ended arrives', async () => {
    const adminBrowser = browserAt(url, { deviceId: 'device-end-admin' });
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    const ann = await verifiedUser('device-end-ann');
    const bob = await verifiedUser('device-end-bob');
    const created = await adminBrowser.post('/api/tournaments', {
      title: 'Photo Finish',
      prize: '$50',
      startAt: new Date(Date.now() + 3000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    const join = 'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }';
    for (const player of [ann, bob]) expect((await player.graphql(join, { id })).status).toBe(200);

    const watcher = await openWs(wsUrlOf(url('/ws')), { origin: url('') });
    sockets.push(watcher);
    let gameEnded: Record<string, unknown> | undefined;
    let answers: Promise<[Answer, Answer, Answer, Answer]> | undefined;
    watcher.socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      if (message.type !== 'game_ended' || answers) return;
      gameEnded = message;
      // VIEW RESULTS at once: in the same tick as the message arrives.
      answers = Promise.all([
        ann.get(`/api/tournaments/${id}/statistics`),
        ann.graphql(STATISTICS, { id }),
        adminBrowser.get('/api/admin/tournaments/history'),
        adminBrowser.get(`/api/admin/tournaments/${id}/details`),
      ]);
    });
    watcher.send({ type: 'subscribe_tournament', tournamentId: id });

    // ann votes, bob does not: bob is out and ann is the last one standing.
    const voting = (await watcher.waitFor((m) => m.type === 'round_voting_started', {
      timeoutMs: 30_000,
    })) as unknown as { roundNumber: number; round: { images: Array<{ id: string }> } };
    const vote = await ann.graphql(
      'mutation ($id: ID!, $round: Int!, $image: ID!) { castVote(tournamentId: $id, roundNumber: $round, imageId: $image) { roundNumber } }',
      { id, round: voting.roundNumber, image: voting.round.images[2]!.id },
    );
    expect(vote.body).toMatchObject({ data: { castVote: { roundNumber: 1 } } });

    await watcher.waitFor((m) => m.type === 'game_ended', { timeoutMs: 30_000 });
    const winnerName = gameEnded?.winnerName;
    expect(typeof winnerName).toBe('string');
    const [rest, graphql, history, details] = await answers!;
    expect(rest.body).toMatchObject({
      tournament: { status: 'finished' },
      totalRounds: 1,
      winner: { username: winnerName },
    });
    expect((graphql.body as { data: { tournamentStatistics: Statistics } }).data).toEqual({
      tournamentStatistics: {
        tournament: { status: 'finished' },
        totalRounds: 1,
        winner: { username: winnerName },
      },
    });
    const item = (history.body as Array<{ tournament: { id: string } }>).find(
      (entry) => entry.tournament.id === id,
    );
    expect(item).toMatchObject({ winner: { username: winnerName } });
    expect(details.body).toMatchObject({
      winner: { username: winnerName },
      rounds: [{ roundNumber: 1 }],
    });
  }, 60_000);
});
