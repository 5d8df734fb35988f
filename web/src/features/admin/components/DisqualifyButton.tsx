import { useMutation } from '@apollo/client';
import { Button, Form, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { i18n } from '../../../app/i18n';
import { messageOf } from '../../../app/errors';
import { useToast } from '../../../app/toast';
import { DisqualifyParticipantDocument } from '../../../gql/operations';
import { afterDisqualification } from './useDisqualified';

/** The reason's bound, as the server checks it (1 to 500 characters after trimming). */
export const DISQUALIFICATION_REASON_MAX = 500;

/** The reason's problem, if any, in the user's language. */
export function reasonProblemOf(reason: string): string | undefined {
  const trimmed = reason.trim();
  if (trimmed.length === 0) return i18n.t('disqualify.reasonRequired');
  if (trimmed.length > DISQUALIFICATION_REASON_MAX) {
    return i18n.t('disqualify.reasonTooLong', { max: DISQUALIFICATION_REASON_MAX });
  }
  return undefined;
}

/**
 * Issue 28 §4: an administrator disqualifies a participant, with a reason the player is shown.
 * During the game they go out at the end of the current round; after it the winner is decided
 * again (docs/fairness.md). The toast says which.
 */
export function DisqualifyButton({
  tournamentId,
  userId,
  name,
}: {
  tournamentId: string;
  userId: string;
  /** The username, or the user id when the report knows no username. */
  name: string;
}) {
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string>();
  const [disqualify, { loading }] = useMutation(DisqualifyParticipantDocument, {
    refetchQueries: afterDisqualification,
  });
  const fieldId = `disqualify-reason-${userId}`;

  const submit = async () => {
    const found = reasonProblemOf(reason);
    setProblem(found);
    if (found) return;
    try {
      const { data } = await disqualify({
        variables: { tournamentId, userId, reason: reason.trim() },
      });
      const done = data?.disqualifyParticipant;
      toast({
        title: done?.duringGame
          ? i18n.t('disqualify.doneDuring', { name, round: done.effectiveRound ?? 0 })
          : done?.winner
            ? i18n.t('disqualify.doneAfter', { name, winner: done.winner.username })
            : i18n.t('disqualify.doneAfterNoWinner', { name }),
        variant: 'success',
      });
      setOpen(false);
      setReason('');
    } catch (error) {
      toast({
        title: i18n.t('disqualify.failed', { name }),
        description: messageOf(error, i18n.t('errors.unknown')),
        variant: 'destructive',
      });
    }
  };

  return (
    <>
      <Button
        size="small"
        danger
        className="disqualify-button"
        aria-label={i18n.t('disqualify.actionOf', { name })}
        onClick={() => {
          setProblem(undefined);
          setOpen(true);
        }}
      >
        {i18n.t('disqualify.action')}
      </Button>
      <Modal
        open={open}
        title={i18n.t('disqualify.title', { name })}
        className="disqualify-dialog"
        onCancel={() => setOpen(false)}
        onOk={() => void submit()}
        okText={i18n.t('disqualify.confirm')}
        cancelText={i18n.t('disqualify.cancel')}
        okButtonProps={{ danger: true, disabled: loading, loading }}
        destroyOnHidden
      >
        <Typography.Paragraph type="secondary">{i18n.t('disqualify.explain')}</Typography.Paragraph>
        <Form layout="vertical" onFinish={() => void submit()}>
          <Form.Item
            label={i18n.t('disqualify.reason')}
            htmlFor={fieldId}
            validateStatus={problem ? 'error' : ''}
            help={problem}
          >
            <Input.TextArea
              id={fieldId}
              value={reason}
              rows={3}
              maxLength={DISQUALIFICATION_REASON_MAX}
              showCount
              onChange={(event) => setReason(event.target.value)}
            />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
