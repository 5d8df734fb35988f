import { actors, admin, failureOf, newAd, startAds, validationFailure } from './support';

describe('listing advertisements', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  beforeEach(async () => {
    ads = await startAds();
  });
  afterEach(() => ads.stop());

  /** Creates ads one minute apart, so creation order is the clock's order. */
  async function createAds(...specs: Record<string, unknown>[]) {
    const ids: string[] = [];
    for (const spec of specs) {
      ads.clock.advance(60_000);
      const { advertisement } = await ads.client.createAdvertisement(newAd(spec));
      ids.push(advertisement!.id);
    }
    return ids;
  }

  const publicTitles = async (displayPosition: string) => {
    const { advertisements } = await ads.client.listAdvertisements({
      actor: actors.visitor,
      displayPosition,
    });
    return advertisements.map((ad) => ad.title);
  };

  it('shows the public only the active ads of the asked position, oldest first', async () => {
    await createAds(
      { title: 'first between' },
      { title: 'before', displayPosition: 'before_game' },
      { title: 'hidden between', isActive: false },
      { title: 'second between', displayPosition: 'between_rounds' },
      { title: 'after', displayPosition: 'after_game' },
    );
    expect(await publicTitles('between_rounds')).toEqual(['first between', 'second between']);
    expect(await publicTitles('before_game')).toEqual(['before']);
    expect(await publicTitles('after_game')).toEqual(['after']);
  });

  it('shows an empty list when no active ad has the position', async () => {
    await createAds({ title: 'hidden', displayPosition: 'after_game', isActive: false });
    expect(await publicTitles('after_game')).toEqual([]);
  });

  it('hides an ad when it is deactivated and shows it again, in its place, when reactivated', async () => {
    const [first] = await createAds({ title: 'first' }, { title: 'second' });
    await ads.client.updateAdvertisement({ actor: admin, id: first!, isActive: false });
    expect(await publicTitles('between_rounds')).toEqual(['second']);
    await ads.client.updateAdvertisement({ actor: admin, id: first!, isActive: true });
    expect(await publicTitles('between_rounds')).toEqual(['first', 'second']);
  });

  it('moves an ad between positions when its position changes', async () => {
    const [id] = await createAds({ title: 'mover' });
    await ads.client.updateAdvertisement({ actor: admin, id: id!, displayPosition: 'before_game' });
    expect(await publicTitles('between_rounds')).toEqual([]);
    expect(await publicTitles('before_game')).toEqual(['mover']);
  });

  it('shows admins every ad, active or not, of every position, newest first', async () => {
    await createAds(
      { title: 'oldest', displayPosition: 'before_game' },
      { title: 'inactive', isActive: false },
      { title: 'newest', displayPosition: 'after_game' },
    );
    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements.map((ad) => [ad.title, ad.displayPosition, ad.isActive])).toEqual([
      ['newest', 'after_game', true],
      ['inactive', 'between_rounds', false],
      ['oldest', 'before_game', true],
    ]);
  });

  it('forgets a deleted ad in both lists', async () => {
    const [deleted] = await createAds({ title: 'gone' }, { title: 'kept' });
    await ads.client.deleteAdvertisement({ actor: admin, id: deleted! });
    expect(await publicTitles('between_rounds')).toEqual(['kept']);
    const { advertisements } = await ads.client.listAdvertisements({ actor: admin });
    expect(advertisements.map((ad) => ad.title)).toEqual(['kept']);
  });

  it.each(['sidebar', '', 'BETWEEN_ROUNDS'])(
    'refuses the unknown position "%s", for visitors and admins alike',
    async (displayPosition) => {
      for (const actor of [actors.visitor, admin]) {
        expect(await failureOf(ads.client.listAdvertisements({ actor, displayPosition }))).toEqual(
          validationFailure(
            'displayPosition must be one of between_rounds, before_game, after_game',
          ),
        );
      }
    },
  );
});
