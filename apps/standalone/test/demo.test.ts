import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
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
        // rounds: 1 s results keep that within the wait below (15 s + 17 × ~7 s).
        GAME_RESULTS_SECONDS: '1',
      },
      port: 0,
      host: '127.0.0.1',
      nodeEnv: 'test',
      // The rules' shortest rounds: the game is the same, in half the time of the demo's 10 s.
      demo: { bots: 10, admin, nextGameAfterMs: 15_000, blitzRoundSeconds: 5 },
    });
    await standalone.group.start();
    startedAt = Date.now();
  });
  afterAll(() => standalone.group.stop());

  it('has its bots play a warm-up game at boot: a finished tournament whose results name a winner', async () => {
    const visitor = browserAt(url, { deviceId: 'demo-early-visitor' });
    // A ceiling for a slow machine, not a measurement: how soon is printed, not asserted.
    const warmUp = await waitFor(
      async () => {
        const tournaments = (await visitor.get('/api/tournaments')).body as TournamentView[];
        const found = tournaments.find((t) => t.title.startsWith('Demo Warm-up'));
        return found?.status === 'finished' && found;
      },
      { message: 'the warm-up game finished', timeoutMs: 90_000, intervalMs: 100 },
    );
    // Real time on purpose: only reported.
    console.log(`the warm-up game finished ${(Date.now() - startedAt) / 1000} s after boot`);
    const id = warmUp.id;
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
  }, 120_000);

  it('schedules a live demo game and one with its offline window open, and its bots play the game to its end', async () => {
    const visitor = browserAt(url, { deviceId: 'demo-watcher' });
    const tournaments = await waitFor(
      async () => {
        const listed = (await visitor.get('/api/tournaments')).body as TournamentView[];
        return listed.length >= 2 && listed;
      },
      { message: 'the demo games scheduled', timeoutMs: 10_000, intervalMs: 200 },
    );
    const blitz = tournaments.find((t) => t.title.startsWith('Demo Blitz'));
    const offline = tournaments.find((t) => t.title.startsWith('Demo Offline Cup'));
    // Scheduled 15 s after boot: on a busy machine the first test may outlast that.
    expect(['upcoming', 'live']).toContain(blitz?.status);
    // The offline window closes 5 minutes before the start; the demo keeps one open.
    expect(new Date(offline?.startAt ?? 0).getTime() - Date.now()).toBeGreaterThan(10 * 60_000);

    const id = blitz?.id ?? '';
    type LiveGame = { phase: string; roundNumber: number; participantCount: number } | null;
    const game = await waitFor(
      async () => {
        const answer = await visitor.graphql(LIVE_GAME, { id });
        const live = (answer.body as { data: { liveGame: LiveGame } }).data.liveGame;
        return live?.phase === 'finished' && live;
      },
      { message: 'the Demo Blitz played to its end', timeoutMs: 240_000, intervalMs: 1_000 },
    );
    expect(game.participantCount).toBe(10);

    const statistics = (await visitor.get(`/api/tournaments/${id}/statistics`)).body as Statistics;
    expect(statistics.totalRounds).toBeGreaterThanOrEqual(1);
    expect(statistics.participantCount).toBe(10);
    // Bots are clearly named: a winner, when there is one, is one of them.
    if (statistics.winner) expect(statistics.winner.username).toMatch(/^bot_\d{3}/);
  }, 270_000);
});
