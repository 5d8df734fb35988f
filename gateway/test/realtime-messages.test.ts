import { GamePhase, TournamentStatus } from '@underdog/proto';
import { execute, parse } from 'graphql';
import { createSchema } from '../src/graphql/schema';
import {
  gameEventMessages,
  snapshotMessage,
  tournamentChangeMessages,
} from '../src/realtime/messages';
import {
  toGameEventView,
  toLiveGameView,
  toTournamentChange,
  type GameEventView,
} from '../src/realtime/views';
import { lifecycleEvent, liveGame, t0, wholeGame } from './game-events';

const views = (tournamentId: string, now = t0): GameEventView[] =>
  wholeGame(tournamentId).map((event) => {
    const view = toGameEventView(event, now);
    if (!view) throw new Error('unmapped event');
    return view;
  });

describe('game events as /ws messages', () => {
  it('turns a whole game into the spec message types, in order', () => {
    const types = views('t-1')
      .flatMap(gameEventMessages)
      .map((message) => message.type);
    expect(types).toEqual([
      'game_started',
      'advertisement_started',
      'round_update',
      'round_voting_started',
      'vote_received',
      'voting_ended',
      'results_started',
      'round_completed',
      'game_ended',
      'winner_announced',
      'game_finished',
    ]);
  });

  it('carries the fields the spec lists', () => {
    const messages = views('t-1', new Date(t0.getTime() + 6_500)).flatMap(gameEventMessages);
    const byType = Object.fromEntries(messages.map((message) => [message.type, message]));
    expect(byType.round_voting_started).toMatchObject({
      tournamentId: 't-1',
      roundNumber: 1,
      // The deadline is 10 s after t0; 3.5 s left rounds up to 4.
      timeRemaining: 4,
      round: { number: 1, timeLimit: 5, images: expect.arrayContaining([expect.anything()]) },
    });
    expect(byType.vote_received).toEqual({
      type: 'vote_received',
      tournamentId: 't-1',
      roundNumber: 1,
      voteCount: 2,
    });
    expect(byType.advertisement_started).toMatchObject({ duration: 5 });
    expect(byType.results_started).toMatchObject({ duration: 10, totalVotes: 2 });
    expect(byType.round_completed).toEqual({
      type: 'round_completed',
      tournamentId: 't-1',
      gameId: 'game-t-1',
      roundNumber: 1,
      eliminatedCount: 0,
      remainingPlayers: 2,
    });
    expect(byType.game_ended).toMatchObject({
      winnerId: 'user-a',
      winnerName: 'Ann',
      winnerMessage: 'Ann wins $5,000!',
    });
    expect(byType.game_finished).toEqual({
      type: 'game_finished',
      tournamentId: 't-1',
      winner: { username: 'ann' },
    });
  });

  it('never shows who advanced to everyone', () => {
    const text = JSON.stringify(views('t-1').flatMap(gameEventMessages));
    expect(text).not.toContain('user-b');
  });

  it('says there is no winner when the last round eliminated everyone', () => {
    const [ended] = views('t-1').filter((view) => view.type === 'GameEnded');
    const noWinner = { ...ended!, winner: null } as GameEventView;
    expect(gameEventMessages(noWinner).map((m) => ('winner' in m ? m.winner : 'n/a'))).toEqual([
      'n/a',
      null,
      null,
    ]);
  });
});

describe('the snapshot', () => {
  it('hides per-image counts while voting is open and shows the time left and own vote', () => {
    const now = new Date(t0.getTime() + 6_000);
    const view = toLiveGameView(
      liveGame({
        player: {
          isParticipant: true,
          isEliminated: false,
          eliminatedInRound: 0,
          isOfflinePlayer: false,
          voteImageId: 'round-1-image-2',
        },
      }),
      now,
    );
    const message = snapshotMessage(view);
    expect(message).toMatchObject({
      type: 'game_state_update',
      tournamentId: 't-1',
      gameState: {
        phase: 'voting',
        votes: {},
        results: [],
        totalVotes: 1,
        timeRemaining: 4,
        round: { number: 1, timeLimit: 5 },
        player: { isParticipant: true, isEliminated: false, voteImageId: 'round-1-image-2' },
      },
    });
  });

  it('shows the last results once the round is resolved', () => {
    const view = toLiveGameView(liveGame({ phase: GamePhase.RESULTS }), t0);
    expect(snapshotMessage(view)).toMatchObject({
      gameState: { phase: 'results', votes: { 'round-0-image-0': 3 }, player: null },
    });
  });
});

describe('tournament lifecycle as /ws messages', () => {
  it('sends the list, plus tournament_live when one goes live', () => {
    const change = toTournamentChange(lifecycleEvent('t-1', 'live', TournamentStatus.LIVE));
    const messages = tournamentChangeMessages(change!, []);
    expect(messages.map((m) => m.type)).toEqual(['tournaments_update', 'tournament_live']);
    expect(messages[1]).toMatchObject({ tournament: { id: 't-1', status: 'live' } });
  });

  it('sends tournament_finished when one finishes, and only the list on a deletion', () => {
    const finished = toTournamentChange(
      lifecycleEvent('t-1', 'finished', TournamentStatus.FINISHED),
    );
    expect(tournamentChangeMessages(finished!, []).map((m) => m.type)).toEqual([
      'tournaments_update',
      'tournament_finished',
    ]);
    const deleted = toTournamentChange(lifecycleEvent('t-1', 'deleted'));
    expect(deleted).toEqual({ kind: 'deleted', tournamentId: 't-1', tournament: null });
    expect(tournamentChangeMessages(deleted!, []).map((m) => m.type)).toEqual([
      'tournaments_update',
    ]);
  });
});

describe('the GraphQL subscription schema', () => {
  it('resolves every game event type from a prepared payload', async () => {
    const document = parse(`subscription ($id: ID!) {
      gameEvents(tournamentId: $id) {
        __typename tournamentId
        ... on RoundVotingStarted { roundNumber images { id } timeRemaining }
        ... on RoundResults { results { imageId votes isWinner } }
        ... on GameEnded { winner { username prize } decidedBy }
      }
    }`);
    const schema = createSchema();
    const typenames: string[] = [];
    for (const view of views('t-1')) {
      const result = await execute({
        schema,
        document,
        rootValue: { gameEvents: view },
        variableValues: { id: 't-1' },
      });
      expect(result.errors).toBeUndefined();
      typenames.push((result.data?.gameEvents as { __typename: string }).__typename);
    }
    expect(typenames).toEqual([
      'GameStarted',
      'AdvertisementStarted',
      'RoundVotingStarted',
      'VoteTotal',
      'VotingEnded',
      'RoundResults',
      'RoundCompleted',
      'GameEnded',
    ]);
  });
});
