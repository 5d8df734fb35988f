import { TOTAL_ROUNDS } from '@underdog/rules';
import { randomUUID } from 'node:crypto';
import { topics } from '@underdog/platform';
import type { GameEvent } from '@underdog/proto';
import { actors } from '@underdog/test-support';
import {
  publishLifecycle,
  publishTournamentNews,
  recordGameEvents,
  advancedFrom,
  startEngine,
  startInfrastructure,
  voteMessage,
  waitFor,
  type TestEngine,
  verified,
} from './support';

describe('game engine on the in-memory adapters', () => {
  let infra: Awaited<ReturnType<typeof startInfrastructure>>;
  let engine: TestEngine;
  let recorder: Awaited<ReturnType<typeof recordGameEvents>>;

  beforeEach(async () => {
    infra = await startInfrastructure();
    engine = await startEngine(infra.infrastructure, 'engine-a');
    recorder = await recordGameEvents(infra.infrastructure.bus, 'test-recorder');
  });

  afterEach(async () => {
    await recorder.stop();
    await engine.group.stop();
    await infra.stop();
  });

  const kinds = () => recorder.events.map((event) => event.kind.case);
  type Kind = GameEvent['kind'];
  /** The first event of a kind (of round N, for the kinds that have a round). */
  const eventOf = <C extends NonNullable<Kind['case']>>(kind: C, round: number) => {
    const found = recorder.events.find((event) => {
      if (event.kind.case !== kind) return false;
      const value = event.kind.value as { roundNumber?: number };
      return value.roundNumber === undefined || value.roundNumber === round;
    });
    return found?.kind.value as Extract<Kind, { case: C }>['value'] | undefined;
  };

  it('runs a game from live to its winner: offline choices, ties, non-voters, replayed votes', async () => {
    const { bus } = infra.infrastructure;
    const { players } = engine.app;
    const tournamentId = randomUUID();
    await publishTournamentNews(bus, tournamentId, 'created');
    await waitFor(
      async () => (await engine.app.live.state(tournamentId)) !== undefined,
      'tournament',
    );
    // An offline player who always picks image 0.
    await publishLifecycle(
      bus,
      tournamentId,
      {
        case: 'offlineChoicesSaved',
        value: {
          userId: 'olive',
          username: 'olive',
          deviceId: 'device-olive',
          choices: Array.from({ length: TOTAL_ROUNDS }, (_, i) => ({
            roundNumber: i + 1,
            selectedImageId: '0',
          })),
        },
      },
      `${tournamentId}:offline:olive`,
    );
    for (const user of ['ann', 'bob', 'cyd', 'dan']) {
      expect((await players.join(verified(user), tournamentId)).isParticipant).toBe(true);
    }
    await expect(
      players.join(actors.user('eve', { deviceId: 'device-ann' }), tournamentId),
    ).rejects.toMatchObject({ reason: 'DEVICE_IN_USE' });
    await expect(players.join(actors.unverified('fay'), tournamentId)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      reason: 'EMAIL_NOT_VERIFIED',
    });

    await publishTournamentNews(bus, tournamentId, 'live');
    await waitFor(() => eventOf('roundVotingStarted', 1) !== undefined, 'round 1');
    const gameId = recorder.events.find((event) => event.kind.case === 'gameStarted')!.gameId;
    expect(eventOf('gameStarted', 0)).toMatchObject({
      participantCount: 5,
      offlineParticipantCount: 1,
    });
    expect(eventOf('roundVotingStarted', 1)?.images[0]).toMatchObject({
      id: 'round-1-image-0',
      url: '/images/sample-1.svg',
      alt: 'Blue whale',
    });

    const vote = (
      userId: string,
      roundNumber: number,
      position: number,
      voteId: string = randomUUID(),
    ) =>
      voteMessage({
        tournamentId,
        gameId,
        voteId,
        userId,
        roundNumber,
        imageId: `round-${roundNumber}-image-${position}`,
      });
    // Round 1: olive (offline) 0; ann and bob 1; cyd 2; dan does not vote.
    // Counts 1, 2, 1, 0: images 0 and 2 tie as least popular; olive and cyd go on.
    await bus.publish(topics.gameVotes.name, [
      vote('ann', 1, 1),
      vote('bob', 1, 1),
      vote('cyd', 1, 2),
    ]);
    await waitFor(() => eventOf('roundResults', 1) !== undefined, 'round 1 results');
    const round1 = eventOf('roundResults', 1)!;
    expect(round1.results.map((result) => result.votes)).toEqual([1, 2, 1, 0]);
    expect(round1.winningImageIds).toEqual(['round-1-image-0', 'round-1-image-2']);
    await expect(advancedFrom(engine.app.live, tournamentId, 1)).resolves.toEqual(['cyd', 'olive']);
    expect(round1.eliminatedCount).toBe(3);
    expect(round1.results.map((result) => result.percentage)).toEqual([25, 50, 25, 0]);

    // Round 2: cyd votes 1 and the same message is delivered twice; an eliminated player's vote
    // and a second vote of cyd are not counted. 1 - 1 tie: both go on.
    await waitFor(() => eventOf('roundVotingStarted', 2) !== undefined, 'round 2');
    const once = vote('cyd', 2, 1, 'vote-cyd-2');
    await bus.publish(topics.gameVotes.name, [once, once, vote('ann', 2, 3), vote('cyd', 2, 2)]);
    await waitFor(() => eventOf('roundResults', 2) !== undefined, 'round 2 results');
    const round2 = eventOf('roundResults', 2)!;
    expect(round2.results.map((result) => result.votes)).toEqual([1, 1, 0, 0]);
    expect(round2.totalVotes).toBe(2);
    await expect(advancedFrom(engine.app.live, tournamentId, 2)).resolves.toEqual(['cyd', 'olive']);

    // Round 3: cyd does not vote; olive's pre-selected choice makes her the last one standing.
    await waitFor(() => eventOf('gameEnded', 0) !== undefined, 'the end');
    expect(eventOf('gameEnded', 0)).toMatchObject({
      winnerUserId: 'olive',
      winnerUsername: 'olive',
      prize: '$5,000',
      roundsPlayed: 3,
      decidedBy: 'last_standing',
    });
    // Each live join was announced once with the count after it (olive, offline, was first).
    expect(
      recorder.events.flatMap((event) =>
        event.kind.case === 'participantJoined'
          ? [`${event.kind.value.userId}:${event.kind.value.participantCount}`]
          : [],
      ),
    ).toEqual(['ann:2', 'bob:3', 'cyd:4', 'dan:5']);
    // Live totals come and go (throttled); everything else happens once, in order.
    expect(kinds().filter((kind) => kind !== 'voteTotal' && kind !== 'participantJoined')).toEqual([
      'gameStarted',
      'roundVotingStarted',
      'votingEnded',
      'roundResults',
      'roundCompleted',
      'roundVotingStarted',
      'votingEnded',
      'roundResults',
      'roundCompleted',
      'roundVotingStarted',
      'votingEnded',
      'roundResults',
      'roundCompleted',
      'gameEnded',
    ]);
    const snapshot = await players.liveGame(verified('cyd'), tournamentId);
    expect(snapshot.state).toMatchObject({ phase: 'finished', decidedBy: 'last_standing' });
    expect(snapshot.player).toMatchObject({
      isParticipant: true,
      isEliminated: true,
      eliminatedInRound: 3,
    });
  });
});
