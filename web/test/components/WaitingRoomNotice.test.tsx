/**
 * @jest-environment jsdom
 */
import { act, screen } from '@testing-library/react';
import { setSocketStatus, setWaitingRoom } from '../../src/app/socketStatus';
import { WaitingRoomNotice } from '../../src/app/WaitingRoomNotice';
import { renderWith } from './render';

/** Issue 25: the banner of a page whose socket a full gateway turned away (close 1013). */
describe('the waiting room notice', () => {
  afterEach(() => act(() => setSocketStatus('connecting')));

  it('is not there while the socket connects, is in or reconnects', () => {
    for (const status of ['connecting', 'connected', 'reconnecting'] as const) {
      act(() => setSocketStatus(status));
      const { container, unmount } = renderWith(<WaitingRoomNotice />);
      expect(container.querySelector('.waiting-room')).toBeNull();
      unmount();
    }
  });

  it('says the game is full and counts down to the next attempt, then goes once the socket is in', () => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    try {
      act(() => setWaitingRoom(Date.now() + 12_500));
      const { container } = renderWith(<WaitingRoomNotice />);
      const text = () => screen.getByRole('status').textContent;
      expect(text()).toBe('The game is full — you are in the waiting room. Retrying in 13 s.');
      act(() => jest.advanceTimersByTime(1_000));
      expect(text()).toBe('The game is full — you are in the waiting room. Retrying in 12 s.');
      act(() => jest.advanceTimersByTime(12_000));
      expect(text()).toBe('The game is full — you are in the waiting room. Trying again…');
      act(() => setSocketStatus('connected'));
      expect(container.querySelector('.waiting-room')).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });

  it('says it is trying again once the wait is over', () => {
    act(() => setWaitingRoom(Date.now() - 1));
    renderWith(<WaitingRoomNotice />);
    expect(screen.getByRole('status').textContent).toBe(
      'The game is full — you are in the waiting room. Trying again…',
    );
  });
});
