/**
 * The chance models behind the ring scores. Each function returns a p-value: how likely the
 * observation (or a more extreme one) is for accounts that act independently, given what everyone
 * else in the tournament did. Approximations are chosen to err towards larger p-values (fewer
 * flags): union bounds and Bonferroni factors, never the other way round.
 */

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++)
    logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
}

export function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/** −log10 p, the "surprise" of a p-value (0 for p = 1, 4 for p = 10⁻⁴). */
export function surprise(p: number): number {
  return p >= 1 ? 0 : -Math.log10(Math.max(p, 1e-300));
}

/**
 * Fisher's method: one p-value for several independent ones (−2 Σ ln pᵢ is χ² with 2k degrees
 * of freedom; its survival function has a closed form for even degrees).
 */
export function fisherCombine(pValues: readonly number[]): number {
  if (pValues.length === 0) return 1;
  const half = pValues.reduce((sum, p) => sum - Math.log(Math.max(p, 1e-300)), 0);
  let term = 1;
  let total = 1;
  for (let j = 1; j < pValues.length; j++) {
    term *= half / j;
    total += term;
  }
  return Math.min(1, Math.exp(-half + Math.log(total)));
}

export interface TightSubset {
  /** Indexes into the times given, the tightest subset found. */
  indexes: number[];
  /** Its span (last − first), ms. */
  span: number;
  p: number;
}

/**
 * How surprising it is that some of a group's events (registrations, votes of one round) fall so
 * close together. For each subset size j (2 … `maxSize`) the tightest j consecutive times give a
 * span s; the chance that j independent events land within s of each other is bounded by
 * j·qʲ⁻¹, where q is the chance that one other event falls in a given window of width s — read
 * from everyone else's events around that moment (`everyone`, sorted, the group's own included
 * and discounted, within ± `densityWindow`), so
 * a rush at the start of a round raises q for everybody in it. Choosing the best subset is paid
 * for: × C(n, j) and × the number of sizes tried. O(n log n + n log N).
 */
export function tightestSubset(
  times: readonly number[],
  everyone: readonly number[],
  options: { densityWindow: number; minSpan: number; maxSize: number },
): TightSubset | undefined {
  const n = times.length;
  const othersCount = everyone.length - n;
  if (n < 2 || othersCount <= 0) return undefined;
  const order = times.map((time, index) => ({ time, index })).sort((a, b) => a.time - b.time);
  const maxSize = Math.min(n, options.maxSize);
  const sizesTried = maxSize - 1;
  let best: TightSubset | undefined;
  for (let j = 2; j <= maxSize; j++) {
    let start = 0;
    let span = Infinity;
    for (let i = 0; i + j - 1 < n; i++) {
      const width = order[i + j - 1]!.time - order[i]!.time;
      if (width < span) {
        span = width;
        start = i;
      }
    }
    const first = order[start]!.time;
    const last = order[start + j - 1]!.time;
    const from = first - options.densityWindow;
    const to = last + options.densityWindow;
    const own = order.filter((entry) => entry.time >= from && entry.time <= to).length;
    const nearby = Math.max(0, upperBound(everyone, to) - lowerBound(everyone, from) - own);
    const effectiveSpan = Math.max(span, options.minSpan);
    const q = Math.min(1, ((nearby + 1) / othersCount) * (effectiveSpan / (to - from)) * 2);
    const logP =
      Math.log(sizesTried) +
      logChoose(n, j) +
      Math.log(j) +
      (j - 1) * Math.log(Math.max(q, 1e-300));
    const p = Math.min(1, Math.exp(logP));
    if (best === undefined || p < best.p) {
      best = {
        indexes: order.slice(start, start + j).map((entry) => entry.index),
        span,
        p,
      };
    }
  }
  return best;
}

/**
 * How surprising a group's spread over a round's images is: the chance that m independent voters,
 * each picking image i with the round's share pᵢ (everyone else's votes, plus one per image so no
 * share is 0), reach at least `distinct` images with no image above `maxPerImage` votes — a
 * covering at least as wide and as even. Exact (a DP over images); groups above 60 voters are not
 * tested (p = 1): a crowd that large covers every image by chance anyway.
 */
export function coveringP(groupCounts: readonly number[], othersCounts: readonly number[]): number {
  const m = groupCounts.reduce((sum, count) => sum + count, 0);
  const k = groupCounts.length;
  if (m < 2 || k < 2 || m > 60) return 1;
  const distinct = groupCounts.filter((count) => count > 0).length;
  const maxPerImage = Math.max(...groupCounts);
  const totalOthers = othersCounts.reduce((sum, count) => sum + count, 0);
  const shares = othersCounts.map((count) => (count + 1) / (totalOthers + k));
  // dp[s][z]: Σ over the images so far of Π pᵢ^nᵢ / nᵢ!, s votes used, z images non-empty.
  let dp: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(k + 1).fill(0));
  dp[0]![0] = 1;
  for (const share of shares) {
    const next: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(k + 1).fill(0));
    for (let s = 0; s <= m; s++) {
      for (let z = 0; z <= k; z++) {
        const value = dp[s]![z]!;
        if (value === 0) continue;
        let term = value;
        for (let c = 0; c <= maxPerImage && s + c <= m; c++) {
          if (c > 0) term *= share / c;
          const row = next[s + c]!;
          row[z + (c > 0 ? 1 : 0)]! += term;
        }
      }
    }
    dp = next;
  }
  let total = 0;
  for (let z = distinct; z <= k; z++) total += dp[m]![z]!;
  return Math.min(1, total * Math.exp(logFactorial(m)));
}

function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

function upperBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}
