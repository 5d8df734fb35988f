import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LiveGameView } from '../state';

/**
 * Issue 28: the player an administrator disqualified sees it, with the reason, on every screen
 * of the game: still in until the end of the round it was decided in, then out (or, after the
 * game, their result withdrawn). Nothing is shown to anyone else.
 */
export function DisqualifiedNotice({ game }: { game: LiveGameView }) {
  const { t } = useTranslation();
  const player = game.player;
  const reason = player?.disqualificationReason;
  if (!player || !reason) return null;
  const when = !player.isEliminated
    ? t('game.disqualifiedPending')
    : player.eliminatedInRound > 0
      ? t('game.disqualifiedOut', { round: player.eliminatedInRound })
      : t('game.disqualifiedAfterGame');
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      className="disqualified-notice"
      data-testid="disqualified-notice"
      message={t('game.disqualifiedTitle')}
      description={
        <>
          <p className="disqualified-reason">{t('game.disqualifiedReason', { reason })}</p>
          <p>{when}</p>
        </>
      }
    />
  );
}
