const STORAGE_KEY = 'device-id';

function randomPart(): string {
  if (typeof crypto !== 'undefined' && 'randomUUID' in crypto) return crypto.randomUUID();
  return Math.random().toString(36).slice(2) + Date.now().toString(36);
}

let memoryId: string | undefined;

/**
 * The browser's device id: a random prefixed string generated once and kept in localStorage
 * under `device-id` (spec §7). Sent as X-Device-ID on every request and in the graphql-ws
 * connection parameters. Falls back to a per-tab id when storage is unavailable.
 */
export function deviceId(): string {
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    if (stored) return stored;
    const created = `device-${randomPart()}`;
    window.localStorage.setItem(STORAGE_KEY, created);
    return created;
  } catch {
    memoryId ??= `device-${randomPart()}`;
    return memoryId;
  }
}
