import { randomUUID } from 'node:crypto';
import { commonErrors, requireAdmin, type Clock } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import type { AdvertisementRepository } from './adapters/advertisement-repository';
import type { CatalogSync } from './catalog-sync';
import type {
  Advertisement,
  AdvertisementChanges,
  AdvertisementFields,
  AdvertisementType,
  DisplayPosition,
} from './domain/advertisement';
import { adsErrors } from './domain/errors';
import { carriesUrl, mediaUrl } from './domain/validation';

export interface AdvertisementsDependencies {
  repository: AdvertisementRepository;
  catalog: CatalogSync;
  clock: Clock;
  /** `http:` media URLs too (outside production); `https:` only otherwise. */
  allowPlainHttp: boolean;
}

/** An update checked against an ad that moved on is checked again, but not for ever. */
const MAX_UPDATE_ROUNDS = 3;

/**
 * The ads use cases: who may do what, the change, and the catalog publication after it. Inputs
 * arrive parsed and valid (the handlers in rpc.ts parse them with domain/validation.ts); each use
 * case still checks its own access rule, so no caller reaches a change without it.
 */
export class Advertisements {
  constructor(private readonly deps: AdvertisementsDependencies) {}

  /**
   * With a position: the active ads of that position, oldest first, for anyone (the client
   * shows the first). Without: every ad, newest first, for admins (the dashboard).
   */
  async list(
    actor: Actor | undefined,
    position: DisplayPosition | undefined,
  ): Promise<Advertisement[]> {
    if (position === undefined) {
      requireAdmin(actor);
      return this.deps.repository.listAll();
    }
    return this.deps.repository.listActive(position);
  }

  async create(actor: Actor | undefined, fields: AdvertisementFields): Promise<Advertisement> {
    requireAdmin(actor);
    const now = this.deps.clock.now();
    const advertisement: Advertisement = {
      id: randomUUID(),
      ...fields,
      content: this.checkedContent(fields.type, fields.content),
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.repository.insert(advertisement);
    await this.deps.catalog.publishNow(advertisement.id);
    return advertisement;
  }

  /** Changes only the fields given; `isActive` hides or shows the ad. */
  async update(
    actor: Actor | undefined,
    id: string,
    changes: AdvertisementChanges,
  ): Promise<Advertisement> {
    requireAdmin(actor);
    const updated = await this.updateChecked(id, changes);
    await this.deps.catalog.publishNow(id);
    return updated;
  }

  /**
   * A change of type or content is checked against the ad it lands on (a text ad made a video
   * keeps its text as the URL), and written only if the ad has not changed since.
   */
  private async updateChecked(id: string, changes: AdvertisementChanges): Promise<Advertisement> {
    const { repository, clock } = this.deps;
    if (changes.type === undefined && changes.content === undefined) {
      return (await repository.update(id, changes, clock.now())) ?? throwNotFound();
    }
    for (let round = 0; round < MAX_UPDATE_ROUNDS; round += 1) {
      const current = (await repository.byId(id)) ?? throwNotFound();
      const type = changes.type ?? current.advertisement.type;
      const content = this.checkedContent(type, changes.content ?? current.advertisement.content);
      const checked = { ...changes, ...(changes.content === undefined ? {} : { content }) };
      const updated = await repository.update(id, checked, clock.now(), current.revision);
      if (updated) return updated;
    }
    throw new Error(`advertisement ${id} kept changing while it was updated`);
  }

  /** An image or video ad's URL, trimmed; 400 VALIDATION_FAILED for any other scheme. */
  private checkedContent(type: AdvertisementType, content: string): string {
    if (!carriesUrl(type)) return content;
    const checked = mediaUrl(type, content, this.deps.allowPlainHttp);
    if ('problem' in checked) throw commonErrors.invalid(checked.problem);
    return checked.url;
  }

  async delete(actor: Actor | undefined, id: string): Promise<void> {
    requireAdmin(actor);
    const deleted = await this.deps.repository.markDeleted(id, this.deps.clock.now());
    if (!deleted) throw adsErrors.notFound();
    await this.deps.catalog.publishNow(id);
  }
}

function throwNotFound(): never {
  throw adsErrors.notFound();
}
