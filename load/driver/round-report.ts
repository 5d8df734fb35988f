// The round bench's arithmetic (`round-bench.ts`), kept pure for load/test/round-report.test.ts:
// the voting window's pace, the check of every produced vote against what was counted, Redis's
// slow log, and per-player memory.

/**
 * How many of `total` votes are due `elapsedMs` into a spread of `spanMs`: evenly paced, all of
 * them once the span is over (and at once for a span of 0).
 */
export function votesDueBy(total: number, elapsedMs: number, spanMs: number): number {
  if (elapsedMs <= 0) return 0;
  if (spanMs <= 0 || elapsedMs >= spanMs) return total;
  return Math.floor((total * elapsedMs) / spanMs);
}

/** What a stored copy of the votes holds, against the votes produced (user id → image id). */
export interface VoteCheck {
  /** Produced votes found once, with their image. */
  matched: number;
  /** Produced votes not found. */
  missing: number;
  /** Produced votes found with another image. */
  wrongImage: number;
  /** Entries for a user who produced no vote. */
  extra: number;
  /** Entries beyond the first for one user (a vote counted twice). */
  doubled: number;
}

export function checkVotes(
  produced: ReadonlyMap<string, string>,
  found: Iterable<readonly [userId: string, imageId: string]>,
): VoteCheck {
  const seen = new Set<string>();
  const check: VoteCheck = { matched: 0, missing: 0, wrongImage: 0, extra: 0, doubled: 0 };
  for (const [userId, imageId] of found) {
    const expected = produced.get(userId);
    if (expected === undefined) {
      check.extra += 1;
      continue;
    }
    if (seen.has(userId)) {
      check.doubled += 1;
      continue;
    }
    seen.add(userId);
    if (expected === imageId) check.matched += 1;
    else check.wrongImage += 1;
  }
  check.missing = produced.size - seen.size;
  return check;
}

/** Every produced vote there once with its image, nothing else. */
export const allCounted = (check: VoteCheck, produced: number): boolean =>
  check.matched === produced &&
  check.missing === 0 &&
  check.wrongImage === 0 &&
  check.extra === 0 &&
  check.doubled === 0;

/** Votes per image. */
export function countByImage(votes: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const imageId of votes) counts.set(imageId, (counts.get(imageId) ?? 0) + 1);
  return counts;
}

/** The images whose count differs between two tallies, with both counts. */
export function tallyDifferences(
  expected: ReadonlyMap<string, number>,
  actual: ReadonlyMap<string, number>,
): Array<{ imageId: string; expected: number; actual: number }> {
  const images = new Set([...expected.keys(), ...actual.keys()]);
  return [...images]
    .map((imageId) => ({
      imageId,
      expected: expected.get(imageId) ?? 0,
      actual: actual.get(imageId) ?? 0,
    }))
    .filter((row) => row.expected !== row.actual)
    .sort((a, b) => a.imageId.localeCompare(b.imageId));
}

export interface SlowCommand {
  ms: number;
  /** The command and its first arguments (a script call names its script's SHA). */
  command: string;
  /** Unix seconds when it ran. */
  at: number;
}

/**
 * The slowest commands of a `SLOWLOG GET` reply (entries `[id, unix time, µs, [args…], …]`),
 * slowest first; an `EVALSHA` of a known script names it (`scripts`: SHA-1 → name).
 */
export function slowestCommands(
  reply: unknown,
  top: number,
  scripts: ReadonlyMap<string, string> = new Map(),
): SlowCommand[] {
  if (!Array.isArray(reply)) return [];
  const entries: SlowCommand[] = [];
  for (const entry of reply as unknown[]) {
    if (!Array.isArray(entry)) continue;
    const [, at, micros, args] = entry as [unknown, unknown, unknown, unknown];
    const words = Array.isArray(args) ? args.map(String) : [];
    const script = words[0]?.toLowerCase() === 'evalsha' ? scripts.get(words[1] ?? '') : undefined;
    if (script) words.splice(1, 1, script);
    entries.push({
      ms: Number(micros) / 1000,
      command: words
        .slice(0, 3)
        .map((word) => (word.length > 24 ? `${word.slice(0, 24)}…` : word))
        .join(' '),
      at: Number(at),
    });
  }
  return entries.sort((a, b) => b.ms - a.ms).slice(0, top);
}

/** Bytes per player between two `used_memory` readings, rounded. */
export const bytesPerPlayer = (before: number, after: number, players: number): number =>
  players > 0 ? Math.round((after - before) / players) : 0;

/**
 * The fastest sustained apply rate in a series of (time ms, votes applied so far) samples: the
 * largest rise over any stretch of at least `windowMs`, per second.
 */
export function peakRate(samples: ReadonlyArray<readonly [number, number]>, windowMs: number) {
  let best = 0;
  let from = 0;
  for (let to = 1; to < samples.length; to += 1) {
    const [toAt, toCount] = samples[to]!;
    while (from + 1 < to && toAt - samples[from + 1]![0] >= windowMs) from += 1;
    const [fromAt, fromCount] = samples[from]!;
    if (toAt - fromAt >= windowMs)
      best = Math.max(best, ((toCount - fromCount) * 1000) / (toAt - fromAt));
  }
  return Math.round(best);
}
