import { timestampDate, type Advertisement } from '@underdog/proto';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';

/** An advertisement as both edges show it: the REST JSON and the GraphQL `Advertisement` type. */
export interface AdvertisementView {
  id: string;
  title: string;
  /** "text", "image", "video" or "html". */
  type: string;
  /** Text, a URL or markup, by type. */
  content: string;
  /** "between_rounds", "before_game" or "after_game". */
  displayPosition: string;
  isActive: boolean;
  /** Seconds. */
  duration: number;
  /** ISO 8601. */
  createdAt: string | null;
  /** ISO 8601. */
  updatedAt: string | null;
}

/**
 * A new ad, shape-checked at the edge. Empty texts and absent optional fields go through as
 * such: the ads service answers with the spec's message ("Title is required") or the default
 * (position between_rounds, 5 seconds, active).
 */
export interface NewAdvertisementInput {
  title: string;
  type: string;
  content: string;
  displayPosition?: string | undefined;
  duration?: number | undefined;
  isActive?: boolean | undefined;
}

/** An edit: only the fields present change; `isActive` hides or shows the ad. */
export type AdvertisementChangesInput = Partial<NewAdvertisementInput>;

/** Where the client shows ads when it asks without a position (spec §7: between rounds). */
export const defaultAdvertisementPosition = 'between_rounds';
export const advertisementDeletedMessage = 'Advertisement deleted successfully.';

/** The one mapping from the ads service's `Advertisement` to what clients see. */
export function toAdvertisementView(advertisement: Advertisement): AdvertisementView {
  return {
    id: advertisement.id,
    title: advertisement.title,
    type: advertisement.type,
    content: advertisement.content,
    displayPosition: advertisement.displayPosition,
    isActive: advertisement.isActive,
    duration: advertisement.duration,
    createdAt: advertisement.createdAt
      ? timestampDate(advertisement.createdAt).toISOString()
      : null,
    updatedAt: advertisement.updatedAt
      ? timestampDate(advertisement.updatedAt).toISOString()
      : null,
  };
}

/**
 * The advertisement operations behind both edges. Listing by position is public; everything
 * else is for admins, which the ads service enforces on the actor.
 */
export class Advertisements {
  constructor(private readonly clients: Pick<GatewayClients, 'ads'>) {}

  /** The active ads of one position, oldest first (the client shows the first); for anyone. */
  async listActive(origin: RequestOrigin, position: string): Promise<AdvertisementView[]> {
    return this.list(origin, position);
  }

  /** Every ad, active or not, newest first: the admin dashboard. */
  async listAll(origin: RequestOrigin): Promise<AdvertisementView[]> {
    return this.list(origin, undefined);
  }

  async create(origin: RequestOrigin, input: NewAdvertisementInput): Promise<AdvertisementView> {
    const { advertisement } = await delegate(
      this.clients.ads.createAdvertisement({ actor: await actorOf(origin), ...input }),
    );
    return toAdvertisementView(required(advertisement));
  }

  async update(
    origin: RequestOrigin,
    id: string,
    input: AdvertisementChangesInput,
  ): Promise<AdvertisementView> {
    const { advertisement } = await delegate(
      this.clients.ads.updateAdvertisement({ actor: await actorOf(origin), id, ...input }),
    );
    return toAdvertisementView(required(advertisement));
  }

  async delete(origin: RequestOrigin, id: string): Promise<void> {
    await delegate(this.clients.ads.deleteAdvertisement({ actor: await actorOf(origin), id }));
  }

  /** An absent position asks the ads service for every ad, which it allows admins only. */
  private async list(
    origin: RequestOrigin,
    position: string | undefined,
  ): Promise<AdvertisementView[]> {
    const { advertisements } = await delegate(
      this.clients.ads.listAdvertisements({
        actor: await actorOf(origin),
        displayPosition: position,
      }),
    );
    return advertisements.map(toAdvertisementView);
  }
}

function required(advertisement: Advertisement | undefined): Advertisement {
  if (!advertisement) throw new Error('the ads service answered without an advertisement');
  return advertisement;
}
