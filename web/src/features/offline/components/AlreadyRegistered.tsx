import { Button, Card } from 'antd';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../../app/i18n';

/** Spec §2: the already-registered message, in Persian (in every language), right to left. */
export const ALREADY_REGISTERED_FA = i18n.t('offline.alreadyRegistered', { lng: 'fa' });

export function AlreadyRegistered({ onBack }: { onBack: () => void }) {
  const { t } = useTranslation();
  return (
    <Card className="picker">
      <p lang="fa" dir="rtl" className="rtl already-registered">
        {ALREADY_REGISTERED_FA}
      </p>
      <Button onClick={onBack}>{t('offline.back')}</Button>
    </Card>
  );
}
