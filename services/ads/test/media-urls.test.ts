import { testContext } from '@underdog/test-support';
import { adsConfig } from '../src/config';
import { createAdsModule } from '../src/service';
import {
  admin,
  clientOf,
  failureOf,
  newAd,
  silentLogger,
  startAds,
  validationFailure,
} from './support';

const httpsOnly = (type: string) =>
  validationFailure(`The ${type} ad's content must be an https:// URL`);
const httpOrHttps = (type: string) =>
  validationFailure(`The ${type} ad's content must be an http:// or https:// URL`);

describe('image and video ad URLs', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  beforeEach(async () => {
    ads = await startAds();
  });
  afterEach(() => ads.stop());

  const hostile = [
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'data:image/svg+xml,<svg onload=alert(1)>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '//evil.example/x.png',
    '/relative/banner.png',
    'banner.png',
    'https://',
  ];

  it.each(['image', 'video'].flatMap((type) => hostile.map((content) => [type, content])))(
    'refuses a %s ad with the content %j on create and saves nothing',
    async (type, content) => {
      expect(await failureOf(ads.client.createAdvertisement(newAd({ type, content })))).toEqual(
        httpOrHttps(type),
      );
      expect((await ads.client.listAdvertisements({ actor: admin })).advertisements).toEqual([]);
    },
  );

  it('refuses an update that makes a saved ad point at javascript:, by content or by type', async () => {
    const image = await ads.client.createAdvertisement(
      newAd({ type: 'image', content: 'https://cdn.example/banner.png' }),
    );
    const text = await ads.client.createAdvertisement(newAd({ content: 'javascript:alert(1)' }));

    expect(
      await failureOf(
        ads.client.updateAdvertisement({
          actor: admin,
          id: image.advertisement!.id,
          content: 'javascript:alert(1)',
        }),
      ),
    ).toEqual(httpOrHttps('image'));
    expect(
      await failureOf(
        ads.client.updateAdvertisement({ actor: admin, id: text.advertisement!.id, type: 'video' }),
      ),
    ).toEqual(httpOrHttps('video'));

    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements.map(({ type, content }) => ({ type, content }))).toEqual(
      expect.arrayContaining([
        { type: 'image', content: 'https://cdn.example/banner.png' },
        { type: 'text', content: 'javascript:alert(1)' },
      ]),
    );
  });

  it('accepts https: and, outside production, http: URLs, trimmed', async () => {
    const https = await ads.client.createAdvertisement(
      newAd({ type: 'image', content: '  https://cdn.example/banner.png?x=1 ' }),
    );
    const http = await ads.client.createAdvertisement(
      newAd({ type: 'video', content: 'http://localhost:8080/trailer.mp4' }),
    );
    expect(https.advertisement!.content).toBe('https://cdn.example/banner.png?x=1');
    expect(http.advertisement!.content).toBe('http://localhost:8080/trailer.mp4');
  });

  it('accepts only https: in production', async () => {
    const production = clientOf(
      createAdsModule(
        testContext(ads.infrastructure, { logger: silentLogger, nodeEnv: 'production' }),
        adsConfig({}),
        { clock: ads.clock },
      ),
    );
    expect(
      await failureOf(
        production.createAdvertisement(
          newAd({ type: 'image', content: 'http://cdn.example/banner.png' }),
        ),
      ),
    ).toEqual(httpsOnly('image'));
    expect(
      await failureOf(
        production.createAdvertisement(newAd({ type: 'video', content: 'javascript:alert(1)' })),
      ),
    ).toEqual(httpsOnly('video'));
    const { advertisement } = await production.createAdvertisement(
      newAd({ type: 'video', content: 'https://cdn.example/trailer.mp4' }),
    );
    expect(advertisement!.content).toBe('https://cdn.example/trailer.mp4');
  });

  it('leaves text and html content alone', async () => {
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({ type: 'html', content: '<a href="https://x.example">Shop</a>' }),
    );
    expect(advertisement!.content).toBe('<a href="https://x.example">Shop</a>');
  });
});
