/**
 * @jest-environment jsdom
 */
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { TabBar } from '../../src/app/TabBar';

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <TabBar />
    </MemoryRouter>,
  );
}

describe('the bottom tab bar', () => {
  it('offers Tournaments, Rules and Profile', () => {
    renderAt('/');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(Array.from(nav.querySelectorAll('a')).map((a) => a.textContent)).toEqual([
      'Tournaments',
      'Rules',
      'Profile',
    ]);
  });

  it.each([
    ['/', 'Tournaments'],
    ['/rules', 'Rules'],
    ['/profile', 'Profile'],
    ['/profile/anything', 'Profile'],
  ])('on %s highlights %s by path prefix', (path, label) => {
    renderAt(path);
    const current = screen.getByRole('link', { current: 'page' });
    expect(current.textContent).toBe(label);
  });

  it('is hidden on game routes', () => {
    renderAt('/game/t-1?mode=live');
    expect(screen.queryByRole('navigation')).toBeNull();
  });
});
