import { Button, Card, Empty, List, Space, Spin, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AdFieldsFragment, AdminAdvertisementsQuery } from '../../../gql/operations';
import { positionLabel, previewOf } from '../validation';

/** The dashboard's advertisement management (/admin): every ad with its edit and delete buttons. */
export function AdsCard({
  ads,
  onCreate,
  onEdit,
  onDelete,
}: {
  ads: { loading: boolean; data?: AdminAdvertisementsQuery | undefined };
  onCreate: () => void;
  onEdit: (ad: AdFieldsFragment) => void;
  onDelete: (ad: AdFieldsFragment) => void;
}) {
  const { t: translate } = useTranslation();
  const adItems = ads.data?.adminAdvertisements ?? [];
  return (
    <Card
      title={translate('admin.adManagement')}
      extra={
        <Button type="primary" onClick={onCreate}>
          {translate('admin.createAd')}
        </Button>
      }
    >
      {ads.loading && !ads.data ? (
        <Spin aria-label={translate('common.loading')} />
      ) : adItems.length === 0 ? (
        <Empty description={translate('admin.noAds')} />
      ) : (
        <List
          dataSource={adItems}
          renderItem={(ad) => (
            <List.Item
              data-testid={`ad-${ad.id}`}
              actions={[
                <Button
                  key="edit"
                  size="small"
                  onClick={() => onEdit(ad)}
                  aria-label={translate('admin.editNamed', { title: ad.title })}
                >
                  {translate('admin.edit')}
                </Button>,
                <Button
                  key="delete"
                  size="small"
                  danger
                  onClick={() => {
                    onDelete(ad);
                  }}
                  aria-label={translate('admin.deleteNamed', { title: ad.title })}
                >
                  {translate('admin.delete')}
                </Button>,
              ]}
            >
              <List.Item.Meta
                title={
                  <Space wrap>
                    <span>{ad.title}</span>
                    <Tag color={ad.isActive ? 'green' : 'default'}>
                      {ad.isActive ? translate('admin.active') : translate('admin.inactive')}
                    </Tag>
                  </Space>
                }
                description={
                  <Space direction="vertical" size={2}>
                    <Space wrap>
                      <span>{ad.type}</span>
                      <span>{positionLabel(ad.displayPosition)}</span>
                      <span>{ad.duration}s</span>
                    </Space>
                    <span className="ad-preview">{previewOf(ad.content)}</span>
                  </Space>
                }
              />
            </List.Item>
          )}
        />
      )}
    </Card>
  );
}
