/**
 * @jest-environment jsdom
 */
// Issue 39, points 2 and 5: the app's toasts through antd — one visible at a time, the next
// after the first has had its time (counted from when the page paints it), F8 moving the focus to the toast showing, and a swipe right
// of 50 px dismissing it (spec §8/§9).
import { act, fireEvent, render, screen } from '@testing-library/react';
import { App as AntApp, ConfigProvider } from 'antd';
import { useEffect } from 'react';
import { ToastProvider, useToast, type Toast } from '../../src/app/toast';

function Announcer({ toasts }: { toasts: Toast[] }) {
  const toast = useToast();
  useEffect(() => toasts.forEach(toast), [toast, toasts]);
  return null;
}

function renderToasts(toasts: Toast[]) {
  return render(
    <ConfigProvider theme={{ token: { motion: false } }}>
      <AntApp notification={{ maxCount: 1 }}>
        <ToastProvider>
          <Announcer toasts={toasts} />
        </ToastProvider>
      </AntApp>
    </ConfigProvider>,
  );
}

const notices = () => [...document.querySelectorAll<HTMLElement>('.ant-notification-notice')];
const titles = () =>
  notices().map((n) => n.querySelector('.ant-notification-notice-message')?.textContent);

/**
 * Lets `ms` of the page's time pass in steps of 10 ms, React handling what each step brought (as
 * in a browser) rather than all of it once the whole time has passed.
 */
function elapse(ms: number) {
  for (let passed = 0; passed < ms; passed += 10) {
    act(() => {
      jest.advanceTimersByTime(Math.min(10, ms - passed));
    });
  }
}

/** jsdom has no PointerEvent: a mouse event of that name carries clientX as React reads it. */
function pointer(type: string, target: HTMLElement, clientX: number) {
  fireEvent(target, new MouseEvent(type, { bubbles: true, clientX }));
}

describe('the toasts on screen', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  const roundEnd: Toast[] = [
    { title: 'Round 2 Complete', durationMs: 4_000 },
    { title: 'Round 3 Voting', durationMs: 3_000 },
  ];

  it('shows one toast at a time, the next once the first has had its time', async () => {
    renderToasts(roundEnd);
    await screen.findByText('Round 2 Complete');
    expect(titles()).toEqual(['Round 2 Complete']);
    elapse(3_900);
    expect(titles()).toEqual(['Round 2 Complete']);
    elapse(200);
    await screen.findByText('Round 3 Voting');
    expect(titles()).toEqual(['Round 3 Voting']);
  });

  it("counts a toast's time from when the page paints it, not from when it is put in the page", async () => {
    // A busy page: the frame that paints the toast comes 600 ms after it is put in the page.
    jest
      .spyOn(window, 'requestAnimationFrame')
      .mockImplementation((paint) => window.setTimeout(() => paint(performance.now()), 600));
    jest.spyOn(window, 'cancelAnimationFrame').mockImplementation((id) => clearTimeout(id));
    renderToasts(roundEnd);
    await screen.findByText('Round 2 Complete');
    elapse(600 + 3_900);
    expect(titles()).toEqual(['Round 2 Complete']);
    elapse(200);
    await screen.findByText('Round 3 Voting');
    expect(titles()).toEqual(['Round 3 Voting']);
  });

  it('moves the focus to the toast showing on F8', async () => {
    renderToasts(roundEnd);
    await screen.findByText('Round 2 Complete');
    fireEvent.keyDown(window, { key: 'F8' });
    expect(document.activeElement).toBe(notices()[0]);
  });

  it('dismisses the toast showing on a swipe right of 50 px, bringing on the next', async () => {
    renderToasts(roundEnd);
    await screen.findByText('Round 2 Complete');
    const notice = notices()[0]!;
    pointer('pointerdown', notice, 100);
    pointer('pointermove', notice, 130);
    expect(titles()).toEqual(['Round 2 Complete']);
    pointer('pointermove', notice, 150);
    await screen.findByText('Round 3 Voting');
    expect(titles()).toEqual(['Round 3 Voting']);
  });
});
