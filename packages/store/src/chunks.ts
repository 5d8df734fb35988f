import { MEMBERS_PER_STEP } from './port';

/** `items` in consecutive slices of at most `size` (the last may be shorter); none when empty. */
export function* chunksOf<T>(items: readonly T[], size = MEMBERS_PER_STEP): Generator<T[]> {
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new RangeError(`a chunk holds at least one item, got ${size}`);
  }
  for (let start = 0; start < items.length; start += size) {
    yield items.slice(start, start + size);
  }
}

/**
 * A Redis cursor scan (`SSCAN`, `HSCAN`: `step` sends one with the cursor and answers the next
 * cursor and the items) as chunks of at most `MEMBERS_PER_STEP` items, until the cursor is back
 * at 0. Redis may return an item twice (the table was resized between steps): each comes once
 * here, by `idOf` (the member, the field), at the price of remembering the ones seen.
 */
export async function* scanInChunks<T>(
  step: (cursor: string) => Promise<[cursor: string, items: T[]]>,
  idOf: (item: T) => string,
): AsyncGenerator<T[]> {
  const seen = new Set<string>();
  let cursor = '0';
  do {
    const [next, items] = await step(cursor);
    cursor = next;
    const fresh = items.filter((item) => {
      const id = idOf(item);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    yield* chunksOf(fresh);
  } while (cursor !== '0');
}
