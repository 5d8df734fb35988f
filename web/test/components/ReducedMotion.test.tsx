/**
 * @jest-environment jsdom
 */
import { ApolloClient, ApolloLink, InMemoryCache } from '@apollo/client';
import { render, screen } from '@testing-library/react';
import { theme as antTheme } from 'antd';
import { AppProviders } from '../../src/app/App';

// The app's stylesheets are Vite's business; jest has no CSS transform.
jest.mock('../../src/features/game/game.css', () => ({}));

function MotionProbe() {
  const { token } = antTheme.useToken();
  return <span data-testid="motion">{String(token.motion)}</span>;
}

function prefersReducedMotion(reduce: boolean) {
  window.matchMedia = (query: string) =>
    ({
      matches: reduce && query === '(prefers-reduced-motion: reduce)',
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

function renderProviders() {
  const client = new ApolloClient({ cache: new InMemoryCache(), link: ApolloLink.empty() });
  render(
    <AppProviders client={client}>
      <MotionProbe />
    </AppProviders>,
  );
  return screen.getByTestId('motion').textContent;
}

describe("antd's motion", () => {
  const original = window.matchMedia;
  afterEach(() => {
    window.matchMedia = original;
  });

  it('is off when the system asks for reduced motion', () => {
    prefersReducedMotion(true);
    expect(renderProviders()).toBe('false');
  });

  it('stays on otherwise', () => {
    prefersReducedMotion(false);
    expect(renderProviders()).toBe('true');
  });
});
