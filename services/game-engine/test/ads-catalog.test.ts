import { topics } from '@underdog/platform';
import {
  AdvertisementSchema,
  AdvertisementSnapshotSchema,
  create,
  toBinary,
} from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { AdsCatalog } from '../src/adapters/ads-catalog';
import { silentLogger, startInfrastructure } from './support';

const snapshot = (id: string, displayPosition: string) =>
  toBinary(
    AdvertisementSnapshotSchema,
    create(AdvertisementSnapshotSchema, {
      advertisement: create(AdvertisementSchema, {
        id,
        title: `ad ${id}`,
        displayPosition,
        duration: 5,
        isActive: true,
      }),
    }),
  );

describe('the engine’s ads catalog (ads.catalog, compacted)', () => {
  it('keeps each ad’s last snapshot, forgets a deleted one (tombstone) and skips an unreadable entry', async () => {
    const { infrastructure, stop } = await startInfrastructure();
    const catalog = new AdsCatalog(infrastructure.bus, 'ads-catalog-test', silentLogger);
    const component = catalog.component();
    await component.start?.();
    try {
      const bus = infrastructure.bus;
      await bus.publish(topics.adsCatalog.name, [
        { key: 'a1', value: snapshot('a1', 'between_rounds') },
        { key: 'bad', value: new Uint8Array([0xff, 0xff, 0xff]) },
        { key: 'a2', value: snapshot('a2', 'after_game') },
      ]);
      await waitFor(() => catalog.pick('after_game')?.id === 'a2', 'the after-game ad');
      expect(catalog.pick('between_rounds')?.id).toBe('a1');

      await bus.publish(topics.adsCatalog.name, [
        { key: 'a1', value: null },
        // A marker after the tombstone: once it is read, the tombstone was too.
        { key: 'a3', value: snapshot('a3', 'before_game') },
      ]);
      await waitFor(() => catalog.pick('before_game')?.id === 'a3', 'the marker ad');
      expect(catalog.pick('between_rounds')).toBeUndefined();
      expect(catalog.pick('after_game')?.id).toBe('a2');
    } finally {
      await component.stop?.();
      await stop();
    }
  });
});
