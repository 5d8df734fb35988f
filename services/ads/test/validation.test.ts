import { timestampDate } from '@underdog/proto';
import { admin, failureOf, newAd, startAds, validationFailure } from './support';

const typeMessage = 'Type must be one of text, image, video, html';
const positionMessage = 'displayPosition must be one of between_rounds, before_game, after_game';
const durationMessage = 'Duration must be between 1 and 60 seconds';

describe('creating an advertisement', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  beforeEach(async () => {
    ads = await startAds();
  });
  afterEach(() => ads.stop());

  it('fills in the defaults: between rounds, 5 seconds, active, timestamps from the clock', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    expect(advertisement).toMatchObject({
      title: 'Spring sale',
      type: 'text',
      content: 'Everything half price this week.',
      displayPosition: 'between_rounds',
      duration: 5,
      isActive: true,
    });
    expect(advertisement!.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(timestampDate(advertisement!.createdAt!)).toEqual(ads.clock.now());
    expect(timestampDate(advertisement!.updatedAt!)).toEqual(ads.clock.now());
  });

  it('keeps every field it is given', async () => {
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({
        title: 'Trailer',
        type: 'video',
        content: 'https://example.com/trailer.mp4',
        displayPosition: 'after_game',
        duration: 30,
        isActive: false,
      }),
    );
    expect(advertisement).toMatchObject({
      title: 'Trailer',
      type: 'video',
      content: 'https://example.com/trailer.mp4',
      displayPosition: 'after_game',
      duration: 30,
      isActive: false,
    });
  });

  it.each(['text', 'image', 'video', 'html'])('accepts the type %s', async (type) => {
    const content = type === 'image' || type === 'video' ? 'https://cdn.example/ad' : 'Sale!';
    const { advertisement } = await ads.client.createAdvertisement(newAd({ type, content }));
    expect(advertisement!.type).toBe(type);
  });

  it.each(['between_rounds', 'before_game', 'after_game'])(
    'accepts the position %s',
    async (displayPosition) => {
      const { advertisement } = await ads.client.createAdvertisement(newAd({ displayPosition }));
      expect(advertisement!.displayPosition).toBe(displayPosition);
    },
  );

  it('accepts durations from 1 to 60 seconds', async () => {
    for (const duration of [1, 60]) {
      const { advertisement } = await ads.client.createAdvertisement(newAd({ duration }));
      expect(advertisement!.duration).toBe(duration);
    }
  });

  it('trims the title and keeps the content exactly as given', async () => {
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({ title: '  Spaced  ', type: 'html', content: '  <b>bold</b>\n' }),
    );
    expect(advertisement!.title).toBe('Spaced');
    expect(advertisement!.content).toBe('  <b>bold</b>\n');
  });

  it('accepts a title of 200 and content of 10000 characters, counting an emoji once', async () => {
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({ title: '🎉'.repeat(200), content: 'x'.repeat(10_000) }),
    );
    expect(Array.from(advertisement!.title)).toHaveLength(200);
  });

  it.each([
    ['an empty title', { title: '' }, 'Title is required'],
    ['a blank title', { title: '   ' }, 'Title is required'],
    [
      'a title over 200 characters',
      { title: 'x'.repeat(201) },
      'Title must be at most 200 characters',
    ],
    ['no type', { type: '' }, typeMessage],
    ['an unknown type', { type: 'gif' }, typeMessage],
    ['a type in capitals', { type: 'TEXT' }, typeMessage],
    ['empty content', { content: '' }, 'Content is required'],
    ['blank content', { content: ' \n\t' }, 'Content is required'],
    [
      'content over 10000 characters',
      { content: 'x'.repeat(10_001) },
      'Content must be at most 10000 characters',
    ],
    ['an unknown position', { displayPosition: 'sidebar' }, positionMessage],
    ['an empty position', { displayPosition: '' }, positionMessage],
    ['a duration of 0', { duration: 0 }, durationMessage],
    ['a duration of 61', { duration: 61 }, durationMessage],
  ])('refuses %s', async (_case, fields, message) => {
    expect(await failureOf(ads.client.createAdvertisement(newAd(fields)))).toEqual(
      validationFailure(message),
    );
    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements).toEqual([]);
  });

  it('reports the first problem in the order of the form', async () => {
    const failure = await failureOf(
      ads.client.createAdvertisement(newAd({ title: '', type: 'gif', duration: 0 })),
    );
    expect(failure).toEqual(validationFailure('Title is required'));
  });
});

describe('updating an advertisement', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  let id: string;
  beforeEach(async () => {
    ads = await startAds();
    const { advertisement } = await ads.client.createAdvertisement(
      newAd({ displayPosition: 'before_game', duration: 12 }),
    );
    id = advertisement!.id;
  });
  afterEach(() => ads.stop());

  it('changes only the fields given and moves updatedAt, not createdAt', async () => {
    const createdAt = ads.clock.now();
    ads.clock.advance(60_000);
    const { advertisement } = await ads.client.updateAdvertisement({
      actor: admin,
      id,
      title: 'Summer sale',
    });
    expect(advertisement).toMatchObject({
      id,
      title: 'Summer sale',
      type: 'text',
      content: 'Everything half price this week.',
      displayPosition: 'before_game',
      duration: 12,
      isActive: true,
    });
    expect(timestampDate(advertisement!.createdAt!)).toEqual(createdAt);
    expect(timestampDate(advertisement!.updatedAt!)).toEqual(ads.clock.now());
  });

  it('changes every field at once', async () => {
    const { advertisement } = await ads.client.updateAdvertisement({
      actor: admin,
      id,
      title: 'Banner',
      type: 'image',
      content: 'https://example.com/banner.png',
      displayPosition: 'after_game',
      duration: 60,
      isActive: false,
    });
    expect(advertisement).toMatchObject({
      title: 'Banner',
      type: 'image',
      content: 'https://example.com/banner.png',
      displayPosition: 'after_game',
      duration: 60,
      isActive: false,
    });
  });

  it.each([
    ['an empty title', { title: '' }, 'Title cannot be empty'],
    ['a blank title', { title: '  ' }, 'Title cannot be empty'],
    [
      'a title over 200 characters',
      { title: 'x'.repeat(201) },
      'Title must be at most 200 characters',
    ],
    ['an unknown type', { type: 'audio' }, typeMessage],
    ['empty content', { content: '' }, 'Content cannot be empty'],
    [
      'content over 10000 characters',
      { content: 'x'.repeat(10_001) },
      'Content must be at most 10000 characters',
    ],
    ['an unknown position', { displayPosition: 'footer' }, positionMessage],
    ['a duration of 0', { duration: 0 }, durationMessage],
    ['a duration of 61', { duration: 61 }, durationMessage],
  ])('refuses %s and leaves the ad as it was', async (_case, fields, message) => {
    expect(
      await failureOf(ads.client.updateAdvertisement({ actor: admin, id, ...fields })),
    ).toEqual(validationFailure(message));
    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements[0]).toMatchObject({ title: 'Spring sale', duration: 12 });
  });

  it('answers NOT_FOUND for an id that does not exist', async () => {
    for (const missing of ['', 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect(
        await failureOf(ads.client.updateAdvertisement({ actor: admin, id: missing, title: 'x' })),
      ).toEqual({ code: 'NOT_FOUND', message: 'Advertisement not found', reason: 'AD_NOT_FOUND' });
    }
  });
});

describe('deleting an advertisement', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  beforeEach(async () => {
    ads = await startAds();
  });
  afterEach(() => ads.stop());

  const notFound = {
    code: 'NOT_FOUND',
    message: 'Advertisement not found',
    reason: 'AD_NOT_FOUND',
  };

  it('removes the ad; a second delete, or an update after it, finds nothing', async () => {
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    const id = advertisement!.id;
    await ads.client.deleteAdvertisement({ actor: admin, id });
    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements).toEqual([]);
    expect(await failureOf(ads.client.deleteAdvertisement({ actor: admin, id }))).toEqual(notFound);
    expect(
      await failureOf(ads.client.updateAdvertisement({ actor: admin, id, isActive: true })),
    ).toEqual(notFound);
  });

  it('answers NOT_FOUND for an id that does not exist', async () => {
    expect(
      await failureOf(ads.client.deleteAdvertisement({ actor: admin, id: 'missing' })),
    ).toEqual(notFound);
  });
});
