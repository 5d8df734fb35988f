import { GlobalOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { currentLanguage, i18n, LANGUAGE_NAMES, LANGUAGES, setLanguage, isLanguage } from './i18n';

const SHORT_NAME = { en: 'EN', fa: 'فا' } as const;

/** The header's language switch: English or Persian, remembered on the device. */
export function LanguageSwitch() {
  const { t } = useTranslation(undefined, { i18n });
  const language = currentLanguage();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: LANGUAGES.map((code) => ({
          key: code,
          label: <span lang={code}>{LANGUAGE_NAMES[code]}</span>,
        })),
        onClick: ({ key }) => {
          if (isLanguage(key)) setLanguage(key);
        },
      }}
    >
      <Button icon={<GlobalOutlined />} className="language-switch">
        <span lang={language}>{SHORT_NAME[language]}</span>
        <span className="visually-hidden">
          {t('language.label')}: {LANGUAGE_NAMES[language]}
        </span>
      </Button>
    </Dropdown>
  );
}
