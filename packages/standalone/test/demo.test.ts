import { createLogger } from '@underdog/kit';
import { createStandalone, type Standalone } from '../src';
import { browserAt } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };

interface TournamentView {
  id: string;
  title: string;
  status: string;
  startAt: string;
}

interface Statistics {
  totalRounds: number;
  participantCount: number;
  winner: { username: string } | null;
}

const LIVE_GAME = /* GraphQL */ `
  query ($id: ID!) {
    liveGame(tournamentId: $id) {
      phase
      roundNumber
      participantCount
      winner {
        username
      }
    }
  }
`;

describe('the standalone demo', () => {
  let standalone: Standalone;
  let startedAt = 0;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;

  beforeAll(async () => {
    standalone = await createStandalone({
      logger: createLogger({ service: 'underdog', level: 'silent' }),
      env: {
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        TOURNAMENT_SCHEDULER_POLL_MS: '50',
        // Two bots left that both vote always tie and both advance, so a game may run all 17
        // rounds: 1 s results keep that within the wait below (15 s + 17 × ~12 s).
        GAME_RESULTS_SECONDS: '1',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
      demo: { bots: 10, admin, nextGameAfterMs: 15_000 },
    });
    await standalone.group.start();
    startedAt = Date.now();
  });
  afterAll(() => standalone.group.stop());

  it('has its bots play a warm-up game at boot: a finished tournament whose results name a winner within seconds', async () => {
    const visitor = browserAt(url, { deviceId: 'demo-early-visitor' });
    let warmUp: TournamentView | undefined;
    while (Date.now() - startedAt < 10_000 && warmUp?.status !== 'finished') {
      const tournaments = (await visitor.get('/api/tournaments')).body as TournamentView[];
      warmUp = tournaments.find((t) => t.title.startsWith('Demo Warm-up'));
      if (warmUp?.status !== 'finished') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(warmUp?.status).toBe('finished');
    const id = warmUp?.id ?? '';
    const statistics = (await visitor.get(`/api/tournaments/${id}/statistics`)).body as Statistics;
    expect(statistics.totalRounds).toBe(1);
    expect(statistics.winner?.username).toMatch(/^bot_\d{3}/);

    const adminBrowser = browserAt(url, { deviceId: 'demo-admin-browser' });
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    const details = (await adminBrowser.get(`/api/admin/tournaments/${id}/details`)).body as {
      winner: { username: string } | null;
      rounds: Array<{ roundNumber: number; votes: unknown[] }>;
    };
    expect(details.winner).toEqual(statistics.winner);
    expect(details.rounds.map((round) => [round.roundNumber, round.votes.length])).toEqual([
      [1, 3],
    ]);
  }, 20_000);

  it('schedules a live demo game and one with its offline window open, and its bots play the game to its end', async () => {
    const visitor = browserAt(url, { deviceId: 'demo-watcher' });
    let tournaments: TournamentView[] = [];
    for (let attempt = 0; attempt < 50 && tournaments.length < 2; attempt += 1) {
      tournaments = (await visitor.get('/api/tournaments')).body as TournamentView[];
      if (tournaments.length < 2) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const blitz = tournaments.find((t) => t.title.startsWith('Demo Blitz'));
    const offline = tournaments.find((t) => t.title.startsWith('Demo Offline Cup'));
    expect(blitz?.status).toBe('upcoming');
    // The offline window closes 5 minutes before the start; the demo keeps one open.
    expect(new Date(offline?.startAt ?? 0).getTime() - Date.now()).toBeGreaterThan(10 * 60_000);

    const id = blitz?.id ?? '';
    let game: { phase: string; roundNumber: number; participantCount: number } | undefined;
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline) {
      const answer = await visitor.graphql(LIVE_GAME, { id });
      game = (answer.body as { data: { liveGame: typeof game } }).data.liveGame;
      if (game?.phase === 'finished') break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(game?.phase).toBe('finished');
    expect(game?.participantCount).toBe(10);

    const statistics = (await visitor.get(`/api/tournaments/${id}/statistics`)).body as Statistics;
    expect(statistics.totalRounds).toBeGreaterThanOrEqual(1);
    expect(statistics.participantCount).toBe(10);
    // Bots are clearly named: a winner, when there is one, is one of them.
    if (statistics.winner) expect(statistics.winner.username).toMatch(/^bot_\d{3}/);
  }, 270_000);
});
