import { Alert } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from './i18n';
import { useSocketStatus, useWaitingRoomRetryAt } from './socketStatus';

/**
 * The waiting room (issue 25): while the gateway turns the socket away as full (close 1013),
 * a banner under the header says so and counts down to the next attempt. Gone once the socket
 * is in; the players already in never see it.
 */
export function WaitingRoomNotice() {
  const status = useSocketStatus();
  if (status !== 'full') return null;
  return <Countdown />;
}

function Countdown() {
  const { t } = useTranslation(undefined, { i18n });
  const retryAt = useWaitingRoomRetryAt();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [retryAt]);
  const seconds = Math.ceil((retryAt - now) / 1_000);
  return (
    <Alert
      banner
      type="warning"
      role="status"
      className="waiting-room"
      message={seconds > 0 ? t('header.waitingRoom', { seconds }) : t('header.waitingRoomRetrying')}
    />
  );
}
