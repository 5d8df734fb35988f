import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGo } from '../../../app/useGo';

/** Any path the app does not know. */
export function NotFoundPage() {
  const { t } = useTranslation();
  const navigate = useGo();
  return (
    <div className="page">
      <Result
        status="404"
        title={<h1 className="result-title">{t('notFound.title')}</h1>}
        subTitle={t('notFound.text')}
        extra={
          <Button type="primary" onClick={() => navigate('/')}>
            {t('notFound.backToHome')}
          </Button>
        }
      />
    </div>
  );
}
