import { i18n } from '../../../app/i18n';
import { Form, Input, Modal } from 'antd';
import { useEffect, useState } from 'react';
import type { TournamentFieldsFragment } from '../../../gql/operations';
import { useServerNow } from '../../time/hooks/serverClock';
import {
  DEFAULT_START_AHEAD_MS,
  toLocalInput,
  validateTournament,
  type Errors,
  type TournamentForm,
} from '../validation';

export interface TournamentDialogProps {
  open: boolean;
  /** The tournament being edited; absent when creating. */
  tournament?: TournamentFieldsFragment;
  pending: boolean;
  onCancel(): void;
  onSubmit(form: TournamentForm): void;
}

function initialForm(
  tournament: TournamentFieldsFragment | undefined,
  now: number,
): TournamentForm {
  return tournament
    ? {
        title: tournament.title,
        description: tournament.description ?? '',
        prize: tournament.prize ?? '',
        startAt: toLocalInput(Date.parse(tournament.startAt)),
      }
    : {
        title: '',
        description: '',
        prize: '',
        startAt: toLocalInput(now + DEFAULT_START_AHEAD_MS),
      };
}

/** Spec §2 Create New Tournament / Edit Tournament, with §5 validation. */
export function TournamentDialog({
  open,
  tournament,
  pending,
  onCancel,
  onSubmit,
}: TournamentDialogProps) {
  const now = useServerNow(30_000);
  const [form, setForm] = useState<TournamentForm>(() => initialForm(tournament, now));
  const [errors, setErrors] = useState<Errors<TournamentForm>>({});
  useEffect(() => {
    if (open) {
      setForm(initialForm(tournament, Date.now()));
      setErrors({});
    }
    // Reset only when the dialog opens for a (possibly different) tournament.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, tournament?.id]);
  const editing = Boolean(tournament);
  const original = tournament ? toLocalInput(Date.parse(tournament.startAt)) : undefined;
  const submit = () => {
    const found = validateTournament(form, Date.now(), original);
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(form);
  };
  const set =
    (key: keyof TournamentForm) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      setForm((f) => ({ ...f, [key]: e.target.value }));
  return (
    <Modal
      open={open}
      title={editing ? i18n.t('adminForms.editTournament') : i18n.t('adminForms.newTournament')}
      onCancel={onCancel}
      onOk={submit}
      okText={
        pending
          ? editing
            ? i18n.t('adminForms.updating')
            : i18n.t('adminForms.creating')
          : editing
            ? i18n.t('adminForms.updateTournament')
            : i18n.t('adminForms.createTournament')
      }
      okButtonProps={{ disabled: pending }}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={submit}>
        <Form.Item
          label={i18n.t('adminForms.title')}
          htmlFor="t-title"
          validateStatus={errors.title ? 'error' : ''}
          help={errors.title}
        >
          <Input id="t-title" value={form.title} onChange={set('title')} />
        </Form.Item>
        <Form.Item label={i18n.t('adminForms.description')} htmlFor="t-description">
          <Input.TextArea
            id="t-description"
            value={form.description}
            onChange={set('description')}
          />
        </Form.Item>
        <Form.Item label={i18n.t('adminForms.prize')} htmlFor="t-prize">
          <Input id="t-prize" value={form.prize} onChange={set('prize')} placeholder="$5,000" />
        </Form.Item>
        <Form.Item
          label={i18n.t('adminForms.startTime')}
          htmlFor="t-start"
          validateStatus={errors.startAt ? 'error' : ''}
          help={errors.startAt}
        >
          <Input
            id="t-start"
            type="datetime-local"
            min={toLocalInput(now)}
            value={form.startAt}
            onChange={set('startAt')}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
