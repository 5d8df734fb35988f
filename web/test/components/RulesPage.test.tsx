/**
 * @jest-environment jsdom
 */
import { fireEvent, screen } from '@testing-library/react';
import { RulesPage } from '../../src/features/rules/components/RulesPage';
import { renderWith } from './render';

describe('the rules page', () => {
  it("tells in its example exactly what its demo round shows: the sun's 4 voters advance", () => {
    renderWith(<RulesPage />);
    expect(
      screen.getByText(
        /48 players start\. In round 1, 21 pick the whale, 14 the cactus, 9 the mountain and only 4 the sun: those 4 advance\./,
      ),
    ).toBeTruthy();

    fireEvent.click(screen.getByText('Least popular wins'));
    const winner = screen.getByText(/— WINNER/).closest('figure')!;
    expect(winner.textContent).toContain('4 votes (8%)');
    expect(winner.querySelector('img')!.getAttribute('alt')).toBe('Yellow sun');
    const counts = [...document.querySelectorAll('.demo__option')].map((figure) => [
      figure.querySelector('img')!.getAttribute('alt'),
      figure.querySelector('figcaption')!.textContent,
    ]);
    expect(counts).toEqual([
      ['Blue whale', '21 votes (44%)'],
      ['Green cactus', '14 votes (29%)'],
      ['Yellow sun', '4 votes (8%) — WINNER'],
      ['Purple mountain', '9 votes (19%)'],
    ]);
  });
});
