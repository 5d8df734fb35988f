/**
 * @jest-environment jsdom
 */
import { act, render, screen } from '@testing-library/react';
import { RoundCountdown } from '../../src/features/game/components/RoundCountdown';
import { ServerClockContext } from '../../src/features/time/hooks/serverClock';

const T0 = Date.parse('2026-11-23T21:00:00.000Z');

function renderClock(endsAt: number, offsetMs = 0) {
  return render(
    <ServerClockContext.Provider value={{ offsetMs }}>
      <RoundCountdown endsAt={endsAt} totalSeconds={15} />
    </ServerClockContext.Provider>,
  );
}

describe('the round countdown', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    jest.setSystemTime(T0);
  });
  afterEach(() => jest.useRealTimers());

  it('counts the seconds to the server deadline without urgency above 5 s', () => {
    renderClock(T0 + 10_000);
    expect(screen.getByRole('timer').textContent).toBe('10s');
    expect(screen.queryByText('HURRY UP! TIME RUNNING OUT!')).toBeNull();
  });

  it('turns urgent, in red, at 5 seconds or less', () => {
    renderClock(T0 + 6_000);
    expect(screen.queryByText('HURRY UP! TIME RUNNING OUT!')).toBeNull();
    act(() => {
      jest.advanceTimersByTime(1_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('5s');
    expect(screen.queryByText('HURRY UP! TIME RUNNING OUT!')).not.toBeNull();
    expect(screen.getByRole('timer').style.color).toBe('rgb(220, 38, 38)');
  });

  it('uses the server-time offset: a server 8 s ahead leaves 2 s of a 10 s deadline', () => {
    renderClock(T0 + 10_000, 8_000);
    expect(screen.getByRole('timer').textContent).toBe('2s');
    expect(screen.queryByText('HURRY UP! TIME RUNNING OUT!')).not.toBeNull();
  });

  it('stops at 0 and drops the urgency once time is up', () => {
    renderClock(T0 + 3_000);
    act(() => {
      jest.advanceTimersByTime(4_000);
    });
    expect(screen.getByRole('timer').textContent).toBe('0s');
    expect(screen.queryByText('HURRY UP! TIME RUNNING OUT!')).toBeNull();
  });
});
