import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import {
  feedOf,
  graphqlWsClient,
  openWs,
  wsUrlOf,
  type ServerMessageLike,
  type WsTestClient,
} from '../../../gateway/test/realtime-clients';
import { createStandalone, type Standalone } from '../src';
import { browserAt, codeIn, mailTo, uniqueEmail, type Browser } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';

/** Every server message of docs/api-ws.md with the fields it documents. */
const documentedFields: Record<string, string[]> = {
  tournaments_update: ['data'],
  tournament_live: ['tournament'],
  tournament_finished: ['tournament'],
  game_state_update: ['tournamentId', 'gameState'],
  vote_processed: ['tournamentId', 'imageId', 'round'],
  round_update: ['tournamentId', 'round'],
  game_started: ['tournamentId', 'gameId', 'participantCount', 'totalRounds', 'roundTimeSeconds'],
  round_voting_started: ['tournamentId', 'roundNumber', 'timeRemaining', 'phaseEndsAt', 'round'],
  voting_ended: ['tournamentId', 'roundNumber', 'totalVotes'],
  advertisement_started: ['tournamentId', 'duration', 'position', 'advertisement', 'phaseEndsAt'],
  results_started: ['tournamentId', 'roundNumber', 'results', 'duration', 'phaseEndsAt'],
  vote_received: ['tournamentId', 'roundNumber', 'voteCount'],
  game_ended: ['tournamentId', 'winnerId', 'winnerName', 'winnerMessage'],
  winner_announced: ['tournamentId', 'winner'],
  round_completed: ['gameId', 'roundNumber', 'eliminatedCount', 'remainingPlayers'],
  game_finished: ['tournamentId', 'winner'],
  error: ['code', 'message'],
};

const GAME_EVENTS = /* GraphQL */ `
  subscription ($id: ID!) {
    gameEvents(tournamentId: $id) {
      __typename
      tournamentId
      ... on GameSnapshot {
        game {
          phase
          player {
            isParticipant
          }
        }
      }
      ... on GameEnded {
        winner {
          username
        }
      }
    }
  }
`;

describe('a whole game over /ws and over graphql-ws (standalone)', () => {
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
    const email = uniqueEmail('player');
    expect(
      (await client.post('/api/register', { email, displayName: 'Player', password })).status,
    ).toBe(200);
    const code = codeIn(await mailTo(url, email));
    expect((await client.post('/api/verify-email', { code })).status).toBe(200);
    return client;
  }

  const ws = async (browser?: Browser) => {
    const socket = await openWs(wsUrlOf(url('/ws')), {
      origin: url(''),
      ...(browser ? { cookie: browser.jar.header() } : {}),
    });
    sockets.push(socket);
    return socket;
  };

  it('delivers every documented message, counts the vote, and restores a reconnecting player', async () => {
    const adminBrowser = browserAt(url, { deviceId: 'device-admin' });
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    for (const displayPosition of ['before_game', 'between_rounds', 'after_game']) {
      const ad = await adminBrowser.post('/api/admin/advertisements', {
        title: `Ad ${displayPosition}`,
        content: 'Buy more images',
        type: 'text',
        displayPosition,
        duration: 1,
      });
      expect(ad.status).toBe(201);
    }
    const ann = await verifiedUser('device-rt-ann');
    const bob = await verifiedUser('device-rt-bob');

    const watcher = await ws();
    await watcher.waitFor((m) => m.type === 'tournaments_update');
    const created = await adminBrowser.post('/api/tournaments', {
      title: 'Realtime Cup',
      prize: '$50',
      startAt: new Date(Date.now() + 4000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    watcher.send({ type: 'subscribe_tournament', tournamentId: id });
    await watcher.waitFor((m) => m.type === 'game_state_update');
    watcher.send({ type: 'no_such_type' });

    const gql = graphqlWsClient(wsUrlOf(url('/graphql')), {
      origin: url(''),
      cookie: bob.jar.header(),
      'x-device-id': 'device-rt-bob',
    });
    const feed = feedOf(gql, GAME_EVENTS, { id });
    await feed.waitForCount(1);
    // bob joins over graphql-ws, ann over HTTP.
    const joined = feedOf(
      gql,
      'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }',
      { id },
    );
    await joined.waitForCount(1);
    expect(joined.values[0]?.data).toEqual({ joinTournament: { isParticipant: true } });
    expect(
      (
        await ann.graphql(
          'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }',
          { id },
        )
      ).status,
    ).toBe(200);

    const player = await ws(ann);
    player.send({ type: 'subscribe_tournament', tournamentId: id });
    const voting = (await player.waitFor((m) => m.type === 'round_voting_started', {
      timeoutMs: 30_000,
    })) as ServerMessageLike & {
      roundNumber: number;
      phaseEndsAt: string;
      round: { images: Array<{ id: string }> };
    };
    const imageId = voting.round.images[1]!.id;
    player.send({
      type: 'game_action',
      tournamentId: id,
      action: 'image_select',
      playerId: 'ignored',
      imageId,
      round: voting.roundNumber,
      timestamp: new Date().toISOString(),
    });
    expect(await player.waitFor((m) => m.type === 'vote_processed')).toEqual({
      type: 'vote_processed',
      tournamentId: id,
      imageId,
      round: voting.roundNumber,
    });

    // Acceptance 3: a drop during voting, then a reconnect: time left and own vote.
    player.close();
    const back = await ws(ann);
    // Real time, as the server reads it (one process): the snapshot is made between the
    // subscription and its arrival, so its whole seconds left lie between those two moments'
    // (an order, not a tolerance for how fast the machine is).
    const subscribedAt = Date.now();
    back.send({ type: 'subscribe_tournament', tournamentId: id });
    const snapshot = (await back.waitFor(
      (m) => m.type === 'game_state_update',
    )) as ServerMessageLike & {
      gameState: { phase: string; timeRemaining: number; player: { voteImageId: string | null } };
    };
    const arrivedAt = Date.now();
    const leftAt = (at: number) =>
      Math.max(0, Math.ceil((Date.parse(voting.phaseEndsAt) - at) / 1000));
    expect(snapshot.gameState.phase).toBe('voting');
    expect(snapshot.gameState.timeRemaining).toBeGreaterThanOrEqual(leftAt(arrivedAt));
    expect(snapshot.gameState.timeRemaining).toBeLessThanOrEqual(leftAt(subscribedAt));
    expect(snapshot.gameState.player.voteImageId).toBe(imageId);

    // bob does not vote: he is out, ann is the last one standing and the game ends.
    await watcher.waitFor((m) => m.type === 'game_finished', { timeoutMs: 60_000 });
    // The tournament service turns the tournament finished once it sees GameEnded.
    await watcher.waitFor((m) => m.type === 'tournament_finished', { timeoutMs: 30_000 });
    const results = watcher.messages.find(
      (m) => m.type === 'results_started',
    ) as ServerMessageLike & {
      results: Array<{ imageId: string; votes: number }>;
    };
    expect(results.results.find((r) => r.imageId === imageId)?.votes).toBe(1);

    const arrived = new Map<string, ServerMessageLike>();
    for (const message of [...watcher.messages, ...back.messages, ...player.messages]) {
      if (!arrived.has(message.type)) arrived.set(message.type, message);
    }
    for (const [type, fields] of Object.entries(documentedFields)) {
      const message = arrived.get(type);
      expect({ type, arrived: message !== undefined }).toEqual({ type, arrived: true });
      for (const field of fields)
        expect({ type, field, present: field in message! }).toEqual({ type, field, present: true });
    }

    await feed.waitForCount(2);
    await waitFor(
      () =>
        feed.values.some(
          (v) => (v.data?.gameEvents as { __typename?: string })?.__typename === 'GameEnded',
        ),
      'GameEnded on the feed',
    );
    const typenames = new Set(
      feed.values.map((v) => (v.data?.gameEvents as { __typename: string }).__typename),
    );
    expect([...typenames].sort()).toEqual(
      [
        'AdvertisementStarted',
        'GameEnded',
        'GameSnapshot',
        'GameStarted',
        'RoundCompleted',
        'RoundResults',
        'RoundVotingStarted',
        'VoteTotal',
        'VotingEnded',
      ].sort(),
    );
    await gql.dispose();
  }, 120_000);
});
