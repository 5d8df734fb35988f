import { useMutation } from '@apollo/client';
import { App as AntApp, Button, Tag } from 'antd';
import { formatDateTime, i18n } from '../../../app/i18n';
import { messageOf } from '../../../app/errors';
import { useToast } from '../../../app/toast';
import { ConfirmPrizePaidDocument } from '../../../gql/operations';

interface Payment {
  paidAt: string;
  paidBy: { userId: string; username?: string | null };
}

/** Issue 28 §4, on a history row: "Paid", who confirmed it and when (wraps on a phone). */
export function PrizePaidMark({ payment }: { payment: Payment | null | undefined }) {
  if (!payment) return null;
  const when = formatDateTime(new Date(payment.paidAt), {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  return (
    <Tag
      color="green"
      data-testid="prize-paid"
      style={{ whiteSpace: 'normal', maxWidth: '100%', overflowWrap: 'anywhere' }}
    >
      {i18n.t('audit.paidBy', { name: payment.paidBy.username ?? payment.paidBy.userId, when })}
    </Tag>
  );
}

/**
 * Issue 28 §4, on a history row: for a finished tournament with a winner whose prize is not yet
 * confirmed, the button that confirms it (after asking); nothing once it is (see PrizePaidMark). The confirmation is itself in the audit log; `onConfirmed` lets the
 * dashboard refresh the history and the log.
 */
export function PrizePaidControl({
  tournamentId,
  title,
  winner,
  payment,
  onConfirmed,
}: {
  tournamentId: string;
  title: string;
  /** The winner's username; no control without one (nothing to pay). */
  winner: string | null | undefined;
  payment: Payment | null | undefined;
  onConfirmed: () => void;
}) {
  const { modal } = AntApp.useApp();
  const toast = useToast();
  const [confirmPaid, { loading }] = useMutation(ConfirmPrizePaidDocument);
  if (payment) return null; // PrizePaidMark shows it
  if (!winner) return null;
  const ask = () =>
    modal.confirm({
      title: i18n.t('audit.confirmPaid', { title, winner }),
      okText: i18n.t('audit.confirm'),
      onOk: async () => {
        try {
          await confirmPaid({ variables: { tournamentId } });
          toast({ title: i18n.t('audit.paidDone'), variant: 'success' });
          onConfirmed();
        } catch (error) {
          toast({
            title: messageOf(error, i18n.t('audit.paidFailed')),
            variant: 'destructive',
          });
        }
      },
    });
  return (
    <Button
      size="small"
      data-testid="mark-prize-paid"
      loading={loading}
      onClick={() => {
        ask();
      }}
      aria-label={i18n.t('audit.markPaidOf', { title })}
    >
      {i18n.t('audit.markPaid')}
    </Button>
  );
}
