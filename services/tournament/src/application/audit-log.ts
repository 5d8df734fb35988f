import { commonErrors, requireAdmin } from '@underdog/kit';
import type { Actor } from '@underdog/proto';
import {
  positionOf,
  type AdminActionRepository,
  type AdminActionRow,
  type StoredAdminAction,
} from '../adapters/admin-action-repository';

export const AUDIT_PAGE = { default: 50, max: 200 } as const;

/** A page of the audit log: newest first, and the cursor of the next (older) page. */
export interface AuditPage {
  actions: StoredAdminAction[];
  /** Undefined when this page is the last. */
  nextBefore: string | undefined;
}

/**
 * The audit log of administrators' actions (issue 28 §4): every `admin.actions` event stored once
 * (by its event id), listed to admins newest first, a page at a time.
 */
export class AuditLog {
  constructor(private readonly repository: AdminActionRepository) {}

  /** Idempotent on the row's id: false when the event was recorded before (redelivered). */
  record(row: AdminActionRow): Promise<boolean> {
    return this.repository.record(row);
  }

  async list(actor: Actor | undefined, limit: number, before: string): Promise<AuditPage> {
    requireAdmin(actor);
    if (!Number.isInteger(limit) || limit < 0 || limit > AUDIT_PAGE.max) {
      throw commonErrors.invalid(`limit must be between 1 and ${AUDIT_PAGE.max}`);
    }
    if (before.length > 300) throw commonErrors.invalid('before is not a cursor of this list');
    const size = limit === 0 ? AUDIT_PAGE.default : limit;
    // One more than asked says whether an older page exists.
    const rows = await this.repository.page(size + 1, before || undefined);
    const actions = rows.slice(0, size);
    const last = actions.at(-1);
    return { actions, nextBefore: rows.length > size && last ? positionOf(last) : undefined };
  }
}
