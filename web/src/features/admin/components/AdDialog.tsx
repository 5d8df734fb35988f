import { i18n } from '../../../app/i18n';
import { Checkbox, Form, Input, Modal, Select } from 'antd';
import { useEffect, useState } from 'react';
import type { AdFieldsFragment } from '../../../gql/operations';
import {
  AD_DEFAULT_DURATION,
  AD_POSITIONS,
  AD_TYPES,
  positionLabel,
  validateAd,
  type AdForm,
  type Errors,
} from '../validation';

export interface AdDialogProps {
  open: boolean;
  ad?: AdFieldsFragment;
  pending: boolean;
  onCancel(): void;
  onSubmit(form: AdForm): void;
}

function initialForm(ad: AdFieldsFragment | undefined): AdForm {
  return ad
    ? {
        title: ad.title,
        type: ad.type,
        content: ad.content,
        displayPosition: ad.displayPosition,
        duration: String(ad.duration),
        isActive: ad.isActive,
      }
    : {
        title: '',
        type: 'text',
        content: '',
        displayPosition: 'between_rounds',
        duration: String(AD_DEFAULT_DURATION),
        isActive: true,
      };
}

/** Spec §2 Create New Advertisement / Edit Advertisement; isActive only in the edit form. */
export function AdDialog({ open, ad, pending, onCancel, onSubmit }: AdDialogProps) {
  const [form, setForm] = useState<AdForm>(() => initialForm(ad));
  const [errors, setErrors] = useState<Errors<AdForm>>({});
  useEffect(() => {
    if (open) {
      setForm(initialForm(ad));
      setErrors({});
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, ad?.id]);
  const editing = Boolean(ad);
  const submit = () => {
    const found = validateAd(form, !editing);
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(form);
  };
  const set =
    (key: 'title' | 'content' | 'duration') =>
    (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
      setForm((f) => ({ ...f, [key]: e.target.value }));
  return (
    <Modal
      open={open}
      title={editing ? i18n.t('adminForms.editAd') : i18n.t('adminForms.newAd')}
      onCancel={onCancel}
      onOk={submit}
      okText={
        pending
          ? editing
            ? i18n.t('adminForms.updating')
            : i18n.t('adminForms.creating')
          : editing
            ? i18n.t('adminForms.updateAd')
            : i18n.t('adminForms.createAd')
      }
      okButtonProps={{ disabled: pending }}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={submit}>
        <Form.Item
          label={i18n.t('adminForms.title')}
          htmlFor="a-title"
          validateStatus={errors.title ? 'error' : ''}
          help={errors.title}
        >
          <Input id="a-title" value={form.title} onChange={set('title')} />
        </Form.Item>
        <Form.Item label={i18n.t('adminForms.type')} htmlFor="a-type">
          <Select
            id="a-type"
            aria-label={i18n.t('adminForms.type')}
            value={form.type}
            onChange={(type) => setForm((f) => ({ ...f, type }))}
            options={AD_TYPES.map((t) => ({ value: t, label: t }))}
          />
        </Form.Item>
        <Form.Item
          label={i18n.t('adminForms.content')}
          htmlFor="a-content"
          validateStatus={errors.content ? 'error' : ''}
          help={errors.content}
        >
          <Input.TextArea id="a-content" value={form.content} onChange={set('content')} rows={3} />
        </Form.Item>
        <Form.Item label={i18n.t('adminForms.position')} htmlFor="a-position">
          <Select
            id="a-position"
            aria-label={i18n.t('adminForms.position')}
            value={form.displayPosition}
            onChange={(displayPosition) => setForm((f) => ({ ...f, displayPosition }))}
            options={AD_POSITIONS.map((p) => ({ value: p, label: positionLabel(p) }))}
          />
        </Form.Item>
        <Form.Item
          label={i18n.t('adminForms.duration')}
          htmlFor="a-duration"
          validateStatus={errors.duration ? 'error' : ''}
          help={errors.duration}
        >
          <Input
            id="a-duration"
            type="number"
            min={1}
            max={60}
            value={form.duration}
            onChange={set('duration')}
          />
        </Form.Item>
        {editing && (
          <Form.Item>
            <Checkbox
              checked={form.isActive}
              onChange={(e) => setForm((f) => ({ ...f, isActive: e.target.checked }))}
            >
              {i18n.t('adminForms.active')}
            </Checkbox>
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
