import { AppError } from '@underdog/kit';
import { disqualify, eliminate, gameKeys } from '@underdog/live-game';
import type { Client } from 'graphql-ws';
import { feedOf, graphqlWsClient, wsUrlOf } from './realtime-clients';
import { startTestGateway, type TestGateway } from './support';

/**
 * Issue 37 point 1 for a disqualification: it is not a session's end (the player stays signed in
 * and watches), so it publishes no revocation; it reaches an open socket through the game's live
 * state, which every vote is admitted against in one atomic step — nothing about it is cached
 * per socket. docs/fairness.md: out at the end of the round the mark names (their vote in that
 * round stays in the tally), so the socket left open is refused the next round's vote at once.
 */
const TOURNAMENT = 'tournament-socket-disqualification';
const FENCE = 7;

const castVote = `mutation CastVote($tournamentId: ID!, $roundNumber: Int!, $imageId: ID!) {
  castVote(tournamentId: $tournamentId, roundNumber: $roundNumber, imageId: $imageId) { imageId }
}`;

describe('a disqualified player’s open graphql-ws socket', () => {
  let gateway: TestGateway;
  const clients: Client[] = [];

  beforeEach(async () => {
    gateway = await startTestGateway({
      auth: {
        getSessionActor: ({ sessionId }) => {
          if (sessionId !== 'session-ann') {
            throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
          }
          return {
            actor: { userId: 'user-ann', username: 'ann', role: 'user', isEmailVerified: true },
            session: { id: sessionId },
          };
        },
      },
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.dispose();
    await gateway.stop();
  });

  async function openRound(round: number, phase = 'voting') {
    await gateway.store.hSet(gameKeys(TOURNAMENT).state, {
      tournamentStatus: 'live',
      gameId: 'game-1',
      fence: String(FENCE),
      phase,
      round: String(round),
      votingEndsAt: String(Date.now() + 60_000),
    });
  }

  async function voteOver(client: Client, round: number) {
    const answer = feedOf(client, castVote, {
      tournamentId: TOURNAMENT,
      roundNumber: round,
      imageId: `round-${round}-image-0`,
    });
    await answer.waitForCount(1);
    return answer.values[0] as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  }

  it('is refused the vote of the round after the one the disqualification took effect in', async () => {
    const keys = gameKeys(TOURNAMENT);
    await gateway.store.hSet(keys.players, { 'user-ann': JSON.stringify({ userId: 'user-ann' }) });
    await gateway.store.sAdd(keys.alive, 'user-ann');
    await openRound(1);
    const client = graphqlWsClient(wsUrlOf(gateway.url('/graphql?deviceId=device-ann')), {
      origin: gateway.url(''),
      cookie: 'underdog_session=session-ann',
    });
    clients.push(client);

    // Disqualified while round 1's votes are open: out at its end; the vote still counts.
    const mark = await disqualify(gateway.store, TOURNAMENT, {
      userId: 'user-ann',
      reason: 'ring',
      at: Date.now(),
      by: 'admin-1',
    });
    expect(mark).toMatchObject({ outcome: 'NEW', mark: { round: 1 } });
    expect((await voteOver(client, 1)).data).toEqual({
      castVote: { imageId: 'round-1-image-0' },
    });

    // Round 1 resolves as the engine does it (the disqualified among the eliminated), round 2 opens.
    await openRound(1, 'tallying');
    expect(
      await eliminate(
        gateway.store,
        TOURNAMENT,
        { token: FENCE, phase: 'tallying', round: 1 },
        { round: 1, userIds: ['user-ann'] },
      ),
    ).toBe('OK');
    await openRound(2);

    const refused = await voteOver(client, 2);
    expect(refused.errors?.[0]?.extensions?.code).toBe('ELIMINATED');
    expect(refused.errors?.[0]).toMatchObject({
      message: 'You have been eliminated: you can watch the rest of the game',
    });
  });
});
