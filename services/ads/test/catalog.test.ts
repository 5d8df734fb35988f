import { AdvertisementSnapshotSchema, fromBinary } from '@underdog/proto';
import { admin, failureOf, newAd, recordCatalog, startAds, waitFor } from './support';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the ads.catalog topic', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  beforeEach(async () => {
    ads = await startAds();
  });
  afterEach(() => ads.stop());

  const titles = (id: string) => ads.catalog.of(id).map((entry) => entry.advertisement?.title);

  it('carries the snapshot of a created ad, keyed by its id, with the event headers', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd({ duration: 9 }));
    const entries = ads.catalog.of(advertisement!.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.tombstone).toBe(false);
    expect(entries[0]!.advertisement).toEqual(advertisement);
    expect(entries[0]!.headers).toEqual({
      'event-type': 'underdog.events.v1.AdvertisementSnapshot',
      'event-id': expect.stringMatching(uuid),
    });
  });

  it('carries a new snapshot after every update, toggles included', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    const id = advertisement!.id;
    ads.clock.advance(1_000);
    await ads.client.updateAdvertisement({ actor: admin, id, isActive: false });
    ads.clock.advance(1_000);
    const { advertisement: shown } = await ads.client.updateAdvertisement({
      actor: admin,
      id,
      isActive: true,
      title: 'Back again',
    });
    const entries = ads.catalog.of(id);
    expect(entries.map((entry) => entry.advertisement?.isActive)).toEqual([true, false, true]);
    expect(entries[2]!.advertisement).toEqual(shown);
    expect(new Set(entries.map((entry) => entry.headers['event-id'])).size).toBe(3);
  });

  it('ends a deleted ad with a tombstone: its key and an empty value', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    const id = advertisement!.id;
    await ads.client.deleteAdvertisement({ actor: admin, id });
    const entries = ads.catalog.of(id);
    expect(entries.map((entry) => entry.tombstone)).toEqual([false, true]);
    expect(entries[1]!.headers).toEqual({
      'event-type': 'underdog.events.v1.AdvertisementSnapshot',
      'event-id': expect.stringMatching(uuid),
    });
    // Decoded like any other message, a tombstone is a snapshot without an advertisement.
    expect(entries[1]!.advertisement).toBeUndefined();
  });

  it('publishes nothing for a refused change', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    const id = advertisement!.id;
    await failureOf(ads.client.createAdvertisement(newAd({ title: '' })));
    await failureOf(ads.client.updateAdvertisement({ actor: admin, id, duration: 0 }));
    await failureOf(ads.client.updateAdvertisement({ actor: admin, id: 'missing', title: 'x' }));
    await failureOf(ads.client.deleteAdvertisement({ actor: undefined, id }));
    expect(ads.catalog.entries.map((entry) => entry.advertisement?.title)).toEqual(['Spring sale']);
  });

  describe('when Kafka refuses a publication', () => {
    it('still saves the change, and the resync publishes it once', async () => {
      ads.bus.failing = true;
      const { advertisement } = await ads.client.createAdvertisement(newAd());
      const id = advertisement!.id;
      const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
      expect(advertisements.map((ad) => ad.id)).toEqual([id]);
      expect(ads.catalog.of(id)).toEqual([]);

      ads.bus.failing = false;
      await ads.module.catalog.sweep();
      expect(ads.catalog.of(id).map((entry) => entry.advertisement)).toEqual([advertisement]);
      await ads.module.catalog.sweep();
      expect(ads.catalog.of(id)).toHaveLength(1);
    });

    it('hides a deleted ad at once, and the resync publishes its tombstone', async () => {
      const { advertisement } = await ads.client.createAdvertisement(newAd());
      const id = advertisement!.id;
      ads.bus.failing = true;
      await ads.client.deleteAdvertisement({ actor: admin, id });
      const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
      expect(advertisements).toEqual([]);
      expect(
        await failureOf(ads.client.updateAdvertisement({ actor: admin, id, isActive: false })),
      ).toMatchObject({ reason: 'AD_NOT_FOUND' });
      expect(ads.catalog.of(id).map((entry) => entry.tombstone)).toEqual([false]);

      ads.bus.failing = false;
      await ads.module.catalog.sweep();
      expect(ads.catalog.of(id).map((entry) => entry.tombstone)).toEqual([false, true]);
      await ads.module.catalog.sweep();
      expect(ads.catalog.of(id)).toHaveLength(2);
    });

    it('resyncs on its own, at start and then periodically', async () => {
      ads.bus.failing = true;
      const { advertisement } = await ads.client.createAdvertisement(newAd());
      // Another replica, whose bus works, sweeps every 100 ms.
      const sweeper = ads.replica({ ADS_CATALOG_RESYNC_INTERVAL_MS: '100' });
      const resync = sweeper.module.catalog.component;
      await resync.start!();
      try {
        await waitFor(() => ads.catalog.of(advertisement!.id).length === 1, 'the first sweep');
        const { advertisement: later } = await ads.client.createAdvertisement(newAd());
        await waitFor(() => ads.catalog.of(later!.id).length === 1, 'a later sweep');
      } finally {
        await resync.stop!();
      }
    });
  });

  it('ends with the stored state when two replicas publish changes of one ad out of order', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd({ title: 'v1' }));
    const id = advertisement!.id;

    // Replica A writes first, but its broker is slow: its message lands after replica B's.
    const slow = ads.bus.hold();
    const updateOnA = ads.client.updateAdvertisement({ actor: admin, id, title: 'from A' });
    await slow.reached;
    const replicaB = ads.replica();
    await replicaB.client.updateAdvertisement({ actor: admin, id, title: 'from B' });
    slow.release();
    await updateOnA;

    // A sees the ad changed under it and publishes the stored state again.
    expect(titles(id)).toEqual(['v1', 'from B', 'from A', 'from B']);
    // What compaction keeps, and what a consumer starting now reads: the stored state.
    const late = await recordCatalog(ads.infrastructure.bus);
    try {
      await late.waitForCount(id, 1);
      expect(late.of(id).map((entry) => entry.advertisement?.title)).toEqual(['from B']);
    } finally {
      await late.stop();
    }
  });

  it('reaches consumers as a binary AdvertisementSnapshot', async () => {
    const received: (Uint8Array | null)[] = [];
    const subscription = await ads.infrastructure.bus.subscribe({
      groupId: 'raw-reader',
      topics: ['ads.catalog'],
      fromBeginning: true,
      handleBatch: async (batch) => void received.push(...batch.map((message) => message.value)),
    });
    try {
      const { advertisement } = await ads.client.createAdvertisement(newAd());
      await waitFor(() => received.length === 1, 'the snapshot');
      expect(fromBinary(AdvertisementSnapshotSchema, received[0]!).advertisement).toEqual(
        advertisement,
      );
    } finally {
      await subscription.stop();
    }
  });
});
