import { createLogger } from '@underdog/kit';
import { waitFor } from '@underdog/test-support';
import { createStandalone, type Standalone } from '../src';
import { browserAt, codeIn, mailTo, uniqueEmail, type Browser } from './support';

const admin = { email: 'admin@example.com', password: 'admin-password1' };
const password = 'correct-horse1';

const LIVE_GAME = /* GraphQL */ `
  query ($id: ID!) {
    liveGame(tournamentId: $id) {
      tournamentId
      gameId
      phase
      roundNumber
      totalRounds
      roundTimeSeconds
      images {
        id
        url
        alt
      }
      phaseEndsAt
      serverTime
      totalVotes
      participantCount
      remainingCount
      results {
        imageId
        votes
        percentage
        isWinner
      }
      player {
        isParticipant
        isEliminated
        voteImageId
      }
    }
  }
`;
const JOIN = /* GraphQL */ `
  mutation ($id: ID!) {
    joinTournament(tournamentId: $id) {
      isParticipant
      isEliminated
      isOfflinePlayer
    }
  }
`;
const VOTE = /* GraphQL */ `
  mutation ($id: ID!, $round: Int!, $image: ID!) {
    castVote(tournamentId: $id, roundNumber: $round, imageId: $image) {
      tournamentId
      roundNumber
      imageId
    }
  }
`;

interface LiveGameJson {
  gameId: string | null;
  phase: string;
  roundNumber: number;
  totalVotes: number;
  participantCount: number;
  remainingCount: number;
  images: Array<{ id: string; url: string; alt: string }>;
  results: Array<{ imageId: string; votes: number; percentage: number; isWinner: boolean }>;
  player: { isParticipant: boolean; isEliminated: boolean; voteImageId: string | null } | null;
}

describe('the live game end to end (standalone): join, vote and the tally over GraphQL', () => {
  let standalone: Standalone;
  const url = (path: string) => `http://127.0.0.1:${standalone.http.port()}${path}`;
  let devices = 0;
  const browser = () => browserAt(url, { deviceId: `device-game-${(devices += 1)}` });

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
  afterAll(() => standalone.group.stop());

  async function registeredUser(verified: boolean, deviceId?: string): Promise<Browser> {
    const client = deviceId === undefined ? browser() : browserAt(url, { deviceId });
    const email = uniqueEmail('gamer');
    expect(
      (await client.post('/api/register', { email, displayName: 'Gamer', password })).status,
    ).toBe(200);
    if (verified) {
      const code = codeIn(await mailTo(url, email));
      expect((await client.post('/api/verify-email', { code })).status).toBe(200);
    }
    return client;
  }

  async function liveGame(client: Browser, id: string): Promise<LiveGameJson> {
    const answer = await client.graphql(LIVE_GAME, { id });
    const body = answer.body as { data?: { liveGame: LiveGameJson }; errors?: unknown };
    if (!body.data) throw new Error(`liveGame failed: ${JSON.stringify(body.errors)}`);
    return body.data.liveGame;
  }

  async function until(
    client: Browser,
    id: string,
    test: (game: LiveGameJson) => boolean,
    what: string,
  ): Promise<LiveGameJson> {
    return waitFor(
      async () => {
        const game = await liveGame(client, id);
        return test(game) && game;
      },
      { message: what, intervalMs: 100 },
    );
  }

  const errorCode = (answer: { body: unknown }) =>
    (answer.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions
      ?.code;

  it('lets verified players join and vote once, refuses the rest with a reason, and shows the tally', async () => {
    const adminBrowser = browser();
    expect((await adminBrowser.post('/api/login', admin)).status).toBe(200);
    const created = await adminBrowser.post('/api/tournaments', {
      title: 'Standalone Cup',
      prize: '$100',
      startAt: new Date(Date.now() + 3000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };

    const ann = await registeredUser(true, 'device-game-ann');
    const bob = await registeredUser(true);
    const unverified = await registeredUser(false);
    const visitor = browser();
    await until(
      visitor,
      id,
      (game) => game.phase === 'waiting',
      'the engine to know the tournament',
    );

    expect(await ann.graphql(JOIN, { id })).toMatchObject({
      status: 200,
      body: { data: { joinTournament: { isParticipant: true, isEliminated: false } } },
    });
    expect(errorCode(await unverified.graphql(JOIN, { id }))).toBe('EMAIL_NOT_VERIFIED');
    // Another account on ann's device: one device backs one participant.
    const annsDevice = await registeredUser(true, 'device-game-ann');
    expect(errorCode(await annsDevice.graphql(JOIN, { id }))).toBe('DEVICE_IN_USE');

    const voting = await until(
      ann,
      id,
      (game) => game.phase === 'voting' && game.roundNumber === 1,
      'round 1 voting',
    );
    expect(voting.images.map((image) => image.id)).toEqual([
      'round-1-image-0',
      'round-1-image-1',
      'round-1-image-2',
      'round-1-image-3',
    ]);
    expect(voting.participantCount).toBe(1);

    const vote = (client: Browser, round: number, image: string) =>
      client.graphql(VOTE, { id, round, image });
    expect(await vote(ann, 1, 'round-1-image-1')).toMatchObject({
      status: 200,
      body: {
        data: { castVote: { tournamentId: id, roundNumber: 1, imageId: 'round-1-image-1' } },
      },
    });
    expect(errorCode(await vote(ann, 1, 'round-1-image-2'))).toBe('ALREADY_VOTED');
    expect(errorCode(await vote(ann, 2, 'round-2-image-0'))).toBe('WRONG_ROUND');
    expect(errorCode(await vote(ann, 1, 'round-2-image-0'))).toBe('INVALID_IMAGE');
    expect(errorCode(await vote(visitor, 1, 'round-1-image-0'))).toBe('UNAUTHENTICATED');
    expect(errorCode(await vote(unverified, 1, 'round-1-image-0'))).toBe('EMAIL_NOT_VERIFIED');
    // bob never pressed PLAY NOW: his first vote in round 1 joins him.
    expect((await vote(bob, 1, 'round-1-image-2')).status).toBe(200);

    const counted = await until(ann, id, (game) => game.totalVotes === 2, 'the total');
    expect(counted.player).toMatchObject({ isParticipant: true, voteImageId: 'round-1-image-1' });
    expect(counted.results).toEqual([]); // per-image counts stay hidden while voting

    const results = await until(ann, id, (game) => game.phase === 'results', 'the results');
    expect(results.results).toEqual([
      { imageId: 'round-1-image-0', votes: 0, percentage: 0, isWinner: false },
      { imageId: 'round-1-image-1', votes: 1, percentage: 50, isWinner: true },
      { imageId: 'round-1-image-2', votes: 1, percentage: 50, isWinner: true },
      { imageId: 'round-1-image-3', votes: 0, percentage: 0, isWinner: false },
    ]);
    expect(results.remainingCount).toBe(2);
    // Ann voted in round 1: another image is refused as a repeated vote (the first one stands),
    // however late; the same image again is a resend, answered as the first was (ADR 9).
    expect(errorCode(await vote(ann, 1, 'round-1-image-0'))).toBe('ALREADY_VOTED');
    expect((await vote(ann, 1, 'round-1-image-1')).status).toBe(200);
    // Too late to join now.
    const late = await registeredUser(true);
    expect(errorCode(await late.graphql(JOIN, { id }))).toBe('JOIN_CLOSED');
    expect(errorCode(await vote(late, 1, 'round-1-image-0'))).toBe('NOT_PARTICIPANT');
  });
});
