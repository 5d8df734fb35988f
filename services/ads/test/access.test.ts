import { create, ActorSchema } from '@underdog/proto';
import { actors, failureOf, newAd, startAds } from './support';

const notAuthenticated = {
  code: 'UNAUTHENTICATED',
  message: 'Not authenticated',
  reason: 'NO_SESSION',
};
const adminOnly = { code: 'FORBIDDEN', message: 'Admin access required', reason: 'ADMIN_ONLY' };

describe('who may do what with advertisements', () => {
  let ads: Awaited<ReturnType<typeof startAds>>;
  let existingId: string;

  beforeEach(async () => {
    ads = await startAds();
    const { advertisement } = await ads.client.createAdvertisement(newAd());
    existingId = advertisement!.id;
  });
  afterEach(() => ads.stop());

  it.each([
    ['a visitor', actors.visitor],
    ['a user', actors.user],
    ['an admin', actors.admin],
  ])('lets %s list the active ads of a position', async (_who, actor) => {
    const { advertisements } = await ads.client.listAdvertisements({
      actor,
      displayPosition: 'between_rounds',
    });
    expect(advertisements.map((ad) => ad.id)).toEqual([existingId]);
  });

  describe.each([
    ['a visitor', actors.visitor, notAuthenticated],
    ['an actor without a user id', create(ActorSchema, { role: 'admin' }), notAuthenticated],
    ['a user', actors.user, adminOnly],
    ['an actor without a role', create(ActorSchema, { userId: 'someone' }), adminOnly],
  ])('refuses %s', (_who, actor, refusal) => {
    it('the full admin list', async () => {
      expect(await failureOf(ads.client.listAdvertisements({ actor }))).toEqual(refusal);
    });

    it('creating an ad, before looking at the input', async () => {
      expect(await failureOf(ads.client.createAdvertisement(newAd({ actor })))).toEqual(refusal);
      expect(
        await failureOf(ads.client.createAdvertisement(newAd({ actor, title: '', type: 'gif' }))),
      ).toEqual(refusal);
    });

    it('updating an ad, existing or not', async () => {
      expect(
        await failureOf(ads.client.updateAdvertisement({ actor, id: existingId, isActive: false })),
      ).toEqual(refusal);
      expect(
        await failureOf(ads.client.updateAdvertisement({ actor, id: 'missing', title: '' })),
      ).toEqual(refusal);
    });

    it('deleting an ad', async () => {
      expect(await failureOf(ads.client.deleteAdvertisement({ actor, id: existingId }))).toEqual(
        refusal,
      );
      const { advertisements } = await ads.client.listAdvertisements({ actor: actors.admin });
      expect(advertisements).toHaveLength(1);
    });
  });

  it('lets an admin list, create, update and delete', async () => {
    const actor = actors.admin;
    const { advertisement } = await ads.client.createAdvertisement(newAd({ title: 'Second' }));
    await ads.client.updateAdvertisement({ actor, id: advertisement!.id, isActive: false });
    await ads.client.deleteAdvertisement({ actor, id: existingId });
    const { advertisements } = await ads.client.listAdvertisements({ actor });
    expect(advertisements.map((ad) => [ad.title, ad.isActive])).toEqual([['Second', false]]);
  });
});
