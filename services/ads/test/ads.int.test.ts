import { randomUUID } from 'node:crypto';
import { createKafkaBus } from '@underdog/bus';
import {
  ComponentGroup,
  createHttpApp,
  createMetricsRegistry,
  finishHttpApp,
  httpServerComponent,
  type Component,
} from '@underdog/kit';
import { testInfra } from '@underdog/harness';
import { createDistributedInfrastructure } from '@underdog/platform';
import { AdsService } from '@underdog/proto';
import { createClient, createHttpTransport, createRpcRouter } from '@underdog/rpc';
import { testContext } from '@underdog/test-support';
import { adsConfig, adsService, createAdsModule } from '../src';
import { advertisementsCollection } from '../src/adapters/advertisement-repository';
import { actors, admin, failureOf, newAd, recordCatalog, silentLogger } from './support';

/** The key internal calls are signed with (SERVICE_TOKEN_SECRET). */
const serviceTokenSecret = 'ads-int-test-service-token-secret-32';

/**
 * The ads service as it runs in distributed mode: its declared needs connected to the harness's
 * real Kafka and MongoDB-wire server, its Connect handlers served over HTTP.
 */
async function startDistributedAds() {
  const infra = testInfra();
  const infrastructure = await createDistributedInfrastructure(
    {
      service: 'ads',
      instanceId: 'int-test',
      needs: adsService.needs,
      kafkaBrokers: infra.kafkaBrokers,
      mongoUrl: infra.mongoUrl,
      mongoDb: `underdog_ads_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    },
    silentLogger,
  );
  const module = createAdsModule(
    testContext(infrastructure, { logger: silentLogger }),
    adsConfig({}),
  );
  // Assembled as runServiceProcess does, on a free loopback port.
  const components: Component[] = [];
  const group = new ComponentGroup(silentLogger, components);
  const app = createHttpApp({
    logger: silentLogger,
    registry: createMetricsRegistry('ads-int-test'),
    readiness: () => group.readiness(),
  });
  app.use(
    createRpcRouter(module.registerRpc!, {
      credentials: { secret: serviceTokenSecret, logger: silentLogger },
    }),
  );
  finishHttpApp(app, silentLogger);
  const http = httpServerComponent(app, { port: 0, host: '127.0.0.1' });
  components.push(...infrastructure.components, ...module.components, http);
  await group.start();
  const client = createClient(
    AdsService,
    createHttpTransport(
      `http://127.0.0.1:${http.port()}`,
      { name: 'gateway', secret: serviceTokenSecret },
      { defaultTimeoutMs: 30_000 },
    ),
  );
  return {
    client,
    readiness: () => group.readiness(),
    stored: infrastructure.documents.collection(advertisementsCollection),
    stop: () => group.stop(),
  };
}

describe('the ads service on Kafka and MongoDB', () => {
  let ads: Awaited<ReturnType<typeof startDistributedAds>>;
  const reader = createKafkaBus({
    brokers: testInfra().kafkaBrokers,
    clientId: 'ads-catalog-reader',
    logger: silentLogger,
  });

  beforeAll(async () => {
    ads = await startDistributedAds();
  });
  afterAll(async () => {
    await ads.stop();
    await reader.close();
  });

  it('creates, lists, toggles and deletes an ad; ads.catalog carries its snapshots then its tombstone', async () => {
    const catalog = await recordCatalog(reader);
    try {
      const { advertisement } = await ads.client.createAdvertisement(
        newAd({ title: 'Kafka sale', displayPosition: 'before_game', duration: 8 }),
      );
      const id = advertisement!.id;
      expect(advertisement).toMatchObject({ isActive: true, duration: 8 });

      const publicList = async () =>
        (
          await ads.client.listAdvertisements({
            actor: actors.visitor,
            displayPosition: 'before_game',
          })
        ).advertisements.map((ad) => ad.id);
      expect(await publicList()).toEqual([id]);
      const { advertisements: adminList } = await ads.client.listAdvertisements({ actor: admin });
      expect(adminList).toEqual([advertisement]);

      await ads.client.updateAdvertisement({ actor: admin, id, isActive: false });
      expect(await publicList()).toEqual([]);
      const { advertisement: shown } = await ads.client.updateAdvertisement({
        actor: admin,
        id,
        isActive: true,
      });
      expect(await publicList()).toEqual([id]);

      await ads.client.deleteAdvertisement({ actor: admin, id });
      expect(await publicList()).toEqual([]);
      expect(await failureOf(ads.client.deleteAdvertisement({ actor: admin, id }))).toMatchObject({
        code: 'NOT_FOUND',
        reason: 'AD_NOT_FOUND',
      });
      // The tombstone is out, so the document itself is gone, not just hidden.
      expect(await ads.stored.findById(id)).toBeNull();

      await catalog.waitForCount(id, 4);
      const entries = catalog.of(id);
      expect(entries.map((entry) => [entry.tombstone, entry.advertisement?.isActive])).toEqual([
        [false, true],
        [false, false],
        [false, true],
        [true, undefined],
      ]);
      expect(entries[0]!.advertisement).toEqual(advertisement);
      expect(entries[2]!.advertisement).toEqual(shown);
      expect(
        entries.every(
          (e) => e.headers['event-type'] === 'underdog.events.v1.AdvertisementSnapshot',
        ),
      ).toBe(true);
      expect(new Set(entries.map((entry) => entry.headers['event-id'])).size).toBe(4);
    } finally {
      await catalog.stop();
    }
  }, 120_000);

  it('reports ready once Kafka and MongoDB answer', async () => {
    expect(await ads.readiness()).toEqual({
      ready: true,
      checks: { kafka: true, mongo: true, 'ads-catalog-resync': true, http: true },
    });
  });

  it('enforces the rules over the network: codes, messages and reasons', async () => {
    expect(await failureOf(ads.client.createAdvertisement(newAd({ actor: undefined })))).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'Not authenticated',
      reason: 'NO_SESSION',
    });
    expect(await failureOf(ads.client.createAdvertisement(newAd({ actor: actors.user })))).toEqual({
      code: 'FORBIDDEN',
      message: 'Admin access required',
      reason: 'ADMIN_ONLY',
    });
    expect(await failureOf(ads.client.createAdvertisement(newAd({ duration: 61 })))).toEqual({
      code: 'BAD_REQUEST',
      message: 'Duration must be between 1 and 60 seconds',
      reason: 'VALIDATION_FAILED',
    });
  });

  it('checks an image ad URL on update against the stored ad, on MongoDB', async () => {
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({ title: 'Mongo banner', type: 'image', content: 'https://cdn.example/a.png' }),
    );
    const id = advertisement!.id;
    expect(
      await failureOf(
        ads.client.updateAdvertisement({ actor: admin, id, content: 'javascript:alert(1)' }),
      ),
    ).toMatchObject({ reason: 'VALIDATION_FAILED' });
    const { advertisement: updated } = await ads.client.updateAdvertisement({
      actor: admin,
      id,
      content: ' https://cdn.example/b.png ',
    });
    expect(updated).toMatchObject({ type: 'image', content: 'https://cdn.example/b.png' });
  });
});
