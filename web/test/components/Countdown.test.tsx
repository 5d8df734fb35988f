/**
 * @jest-environment jsdom
 */
import { act, screen } from '@testing-library/react';
import { Countdown, formatDuration } from '../../src/features/time/components/Countdown';
import { offsetFrom } from '../../src/features/time/hooks/serverClock';
import { renderWith } from './render';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');

describe('the countdown', () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it('counts down on the server clock: a server 30 s ahead shows 30 s less', () => {
    renderWith(<Countdown to={NOW + 90_000} label="Starts in" />, { offsetMs: 30_000 });
    expect(screen.getByRole('timer').textContent).toBe('01:00');
  });

  it('ticks every second and stops at zero', () => {
    renderWith(<Countdown to={NOW + 2_000} label="Starts in" />);
    expect(screen.getByRole('timer').textContent).toBe('00:02');
    act(() => {
      jest.advanceTimersByTime(1_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('00:01');
    act(() => {
      jest.advanceTimersByTime(5_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('00:00');
  });

  it('formats hours and days', () => {
    expect(formatDuration(3_723_000)).toBe('01:02:03');
    expect(formatDuration(90_000_000)).toBe('1d 01:00:00');
  });

  it('estimates the offset from the midpoint of the request', () => {
    // Sent at 1000, answered at 1200: the server read its clock at ~1100 local time.
    expect(offsetFrom(new Date(5_100).toISOString(), 1_000, 1_200)).toBe(4_000);
  });
});
