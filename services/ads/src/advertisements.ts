import { randomUUID } from 'node:crypto';
import { requireAdmin, type Clock } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import type { AdvertisementRepository } from './adapters/advertisement-repository';
import type { CatalogSync } from './catalog-sync';
import type {
  Advertisement,
  AdvertisementChanges,
  AdvertisementFields,
  DisplayPosition,
} from './domain/advertisement';
import { adsErrors } from './domain/errors';

export interface AdvertisementsDependencies {
  repository: AdvertisementRepository;
  catalog: CatalogSync;
  clock: Clock;
}

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
    const updated = await this.deps.repository.update(id, changes, this.deps.clock.now());
    if (!updated) throw adsErrors.notFound();
    await this.deps.catalog.publishNow(id);
    return updated;
  }

  async delete(actor: Actor | undefined, id: string): Promise<void> {
    requireAdmin(actor);
    const deleted = await this.deps.repository.markDeleted(id, this.deps.clock.now());
    if (!deleted) throw adsErrors.notFound();
    await this.deps.catalog.publishNow(id);
  }
}
