/**
 * @jest-environment jsdom
 */
// Issue 39, point 5: what the offline picker says when saving the 17 choices fails — the Persian
// already-registered message when the server says the choices were saved meanwhile (another
// tab), spec §8's not-logged-in text when the session is gone, and the short failure text on
// the play screen.
import { fireEvent, screen } from '@testing-library/react';
import { TOTAL_ROUNDS } from '@underdog/rules';
import { GraphQLError } from 'graphql';
import { en } from '../../src/app/i18n/en';
import { OfflinePicker } from '../../src/features/offline/components/OfflinePicker';
import { AdvertisementsDocument, SaveOfflineChoicesDocument } from '../../src/gql/operations';
import { renderWith } from './render';

const tournament = {
  id: 't-1',
  title: 'Evening Cup',
  description: null,
  status: 'upcoming' as const,
  startAt: '2030-01-01T12:00:00.000Z',
  prize: '$50',
  participantCount: 0,
  roundTimeSeconds: 15,
};

/** The save answered with an error of `code`; no ads between the picks. */
function mocks(code: string) {
  return [
    {
      request: { query: AdvertisementsDocument, variables: { position: 'between_rounds' } },
      result: { data: { advertisements: [] } },
    },
    {
      request: {
        query: SaveOfflineChoicesDocument,
        variables: {
          tournamentId: 't-1',
          choices: Array.from({ length: TOTAL_ROUNDS }, (_, index) => ({
            roundNumber: index + 1,
            selectedImageId: '0',
          })),
        },
      },
      result: { errors: [new GraphQLError('refused', { extensions: { code } })] },
    },
  ];
}

/** Picks option 1 in each of the 17 rounds, which submits the choices. */
async function pickAll() {
  for (let round = 1; round <= TOTAL_ROUNDS; round += 1) {
    await screen.findByText(`Round ${round} of ${TOTAL_ROUNDS}`);
    fireEvent.click(screen.getAllByRole('button', { pressed: false })[0]!);
  }
  await screen.findByText(en.offline.complete);
}

describe('saving the offline choices', () => {
  it('shows the Persian already-registered message when the server says they were saved meanwhile', async () => {
    const back = jest.fn();
    renderWith(<OfflinePicker tournament={tournament} onDone={jest.fn()} onCancel={back} />, {
      mocks: mocks('ALREADY_REGISTERED'),
    });
    await pickAll();
    await screen.findByText(en.offline.alreadyRegistered, undefined, { timeout: 3_000 });
    fireEvent.click(screen.getByRole('button', { name: en.offline.back }));
    expect(back).toHaveBeenCalled();
  });

  it('tells a player whose session is gone that they must be logged in', async () => {
    renderWith(<OfflinePicker tournament={tournament} onDone={jest.fn()} onCancel={jest.fn()} />, {
      mocks: mocks('UNAUTHENTICATED'),
    });
    await pickAll();
    await screen.findByText(en.offline.mustBeLoggedIn, undefined, { timeout: 3_000 });
  });

  it('says the short failure text on the play screen', async () => {
    renderWith(
      <OfflinePicker
        tournament={tournament}
        onDone={jest.fn()}
        onCancel={jest.fn()}
        screen="game"
      />,
      { mocks: mocks('INTERNAL') },
    );
    await pickAll();
    await screen.findByText(en.offline.errorTextShort, undefined, { timeout: 3_000 });
  });
});
