/**
 * @jest-environment jsdom
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import {
  DisqualifyButton,
  reasonProblemOf,
} from '../../src/features/admin/components/DisqualifyButton';
import { DisqualifiedNotice } from '../../src/features/game/components/DisqualifiedNotice';
import {
  applyGameEvent,
  canVote,
  toastsOf,
  type GameEvent,
  type LiveGameView,
} from '../../src/features/game/state';
import { DisqualifyParticipantDocument } from '../../src/gql/operations';
import { renderWith } from './render';

/*
 * Issue 28 in the web app: the disqualified player's view (the reducer, the notice, no vote)
 * and the admin's Disqualify action (its reason's bounds, the mutation it sends).
 */

const images = [0, 1, 2, 3].map((m) => ({ id: `round-2-image-${m}`, url: '/x.svg', alt: `${m}` }));

function game(overrides: Partial<LiveGameView> = {}): LiveGameView {
  return {
    tournamentId: 't1',
    gameId: 'g1',
    phase: 'voting',
    roundNumber: 2,
    totalRounds: 17,
    roundTimeSeconds: 5,
    images,
    phaseEndsAt: '2026-11-23T21:00:05.000Z',
    serverTime: '2026-11-23T21:00:00.000Z',
    timeRemaining: 5,
    totalVotes: 0,
    participantCount: 4,
    offlineParticipantCount: 0,
    remainingCount: 4,
    results: [],
    advertisement: null,
    winner: null,
    player: {
      isParticipant: true,
      isEliminated: false,
      eliminatedInRound: 0,
      isOfflinePlayer: false,
      voteImageId: null,
      disqualificationReason: null,
    },
    ...overrides,
  };
}

const base = { tournamentId: 't1', gameId: 'g1', occurredAt: '2026-11-23T21:00:00.000Z' };
const disqualified: GameEvent = {
  __typename: 'ParticipantDisqualified',
  ...base,
  roundNumber: 2,
  reason: 'Ring of accounts',
  afterGame: false,
};

describe("the disqualified player's game", () => {
  it('takes the player out with the reason when their notice arrives, and shows a toast', () => {
    const after = applyGameEvent(game(), disqualified)!;
    expect(after.player).toMatchObject({
      isEliminated: true,
      eliminatedInRound: 2,
      disqualificationReason: 'Ring of accounts',
    });
    expect(toastsOf(disqualified)).toEqual([
      { title: 'You have been disqualified', description: 'Ring of accounts', durationMs: 8_000 },
    ]);
  });

  it('puts a disqualified player out at the round results even when their image won', () => {
    const pending = game({
      player: {
        ...game().player!,
        voteImageId: images[1]!.id,
        disqualificationReason: 'Ring of accounts',
      },
    });
    const after = applyGameEvent(pending, {
      __typename: 'RoundResults',
      ...base,
      roundNumber: 2,
      results: [],
      totalVotes: 1,
      winningImageIds: [images[1]!.id],
      eliminatedCount: 1,
      remainingCount: 3,
      durationSeconds: 5,
      phaseEndsAt: null,
    })!;
    expect([after.player?.isEliminated, after.player?.eliminatedInRound]).toEqual([true, 2]);
  });

  it('never lets a disqualified player vote', () => {
    const viewer = { loggedIn: true, mode: 'live' as const };
    expect(canVote(game(), viewer, 5_000)).toBe(true);
    const pending = game({
      player: { ...game().player!, disqualificationReason: 'Ring of accounts' },
    });
    expect(canVote(pending, viewer, 5_000)).toBe(false);
  });

  it('shows the notice with the reason: out at the end of this round, then out in round N', () => {
    const pending = game({
      player: { ...game().player!, disqualificationReason: 'Ring of accounts' },
    });
    const { rerender } = renderWith(<DisqualifiedNotice game={pending} />);
    expect(screen.getByRole('alert').textContent).toContain('You have been disqualified');
    expect(screen.getByText('Reason: Ring of accounts')).toBeTruthy();
    expect(screen.getByText('You go out at the end of this round.')).toBeTruthy();
    rerender(<DisqualifiedNotice game={applyGameEvent(pending, disqualified)!} />);
    expect(screen.getByText('You went out at the end of round 2.')).toBeTruthy();
  });

  it('shows nothing to a player who was not disqualified', () => {
    renderWith(<DisqualifiedNotice game={game()} />);
    expect(screen.queryByTestId('disqualified-notice')).toBeNull();
  });
});

describe("the admin's Disqualify action", () => {
  it('asks for a reason of 1 to 500 characters after trimming', () => {
    expect(reasonProblemOf('   ')).toBe('Enter a reason');
    expect(reasonProblemOf('x'.repeat(501))).toBe('At most 500 characters');
    expect(reasonProblemOf(' Ring ')).toBeUndefined();
  });

  it('sends the trimmed reason and says when the player goes out', async () => {
    const variables = { tournamentId: 't1', userId: 'u-cheat', reason: 'Ring of accounts' };
    let sent = false;
    renderWith(<DisqualifyButton tournamentId="t1" userId="u-cheat" name="cheat" />, {
      mocks: [
        {
          request: { query: DisqualifyParticipantDocument, variables },
          result: () => {
            sent = true;
            return {
              data: {
                disqualifyParticipant: {
                  __typename: 'Disqualification',
                  ...variables,
                  duringGame: true,
                  effectiveRound: 2,
                  winner: null,
                },
              },
            };
          },
        },
      ],
    });
    fireEvent.click(screen.getByRole('button', { name: 'Disqualify cheat' }));
    const ok = await screen.findByRole('button', { name: 'Disqualify' });
    fireEvent.click(ok);
    expect(await screen.findByText('Enter a reason')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Reason (shown to the player)'), {
      target: { value: '  Ring of accounts ' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Disqualify' }));
    await waitFor(() => expect(sent).toBe(true));
    expect(await screen.findByText('cheat goes out at the end of round 2')).toBeTruthy();
  });
});
