// Over 300 lines: the draw and its public check together — what the engine computes and what a
// player recomputes from the published events must read as one piece (docs/fairness.md).
import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * The auditable draw. When several players survive the last round, the engine picks the winner
 * with a seed fixed before the game: candidates sorted, index = the first 48 bits of
 * SHA-256("underdog-draw:" + seed) modulo their count (the prefix keeps it apart from the
 * commitment SHA-256(seed), which is public from the start). The engine draws with this very
 * function (services/game-engine/src/domain/resolution.ts imports it). The game's first event publishes
 * SHA-256(seed) (`drawSeedSha256`); `GameEnded` reveals the seed, so anyone can check that the seed
 * was not chosen after the votes and recompute the winner. docs/fairness.md, "Recomputing a draw".
 */
export function drawWinner(seed: string, candidates: readonly string[]): string {
  if (candidates.length === 0) throw new Error('a draw needs at least one candidate');
  const sorted = [...candidates].sort();
  return sorted[hash48(`underdog-draw:${seed}`) % sorted.length]!;
}

/** The first 48 bits of SHA-256(text) as an unsigned big-endian number. */
function hash48(text: string): number {
  return createHash('sha256').update(text).digest().readUIntBE(0, 6);
}

/**
 * The full order of a draw's candidates, fixed by the seed (issue 37): the candidates sorted,
 * then for k = 0, 1, …, n − 2 position k is swapped with position k + (h_k mod (n − k)), where
 * h_k is the first 48 bits of SHA-256("underdog-draw:" + seed) for k = 0 and of
 * SHA-256("underdog-draw:" + seed + ":" + k) after it (a Fisher–Yates shuffle). Its first is
 * `drawWinner(seed, candidates)`. The engine publishes the order at the reveal (`GameEnded`); a
 * disqualification after the game gives the prize to the next eligible one in it, never to a new
 * draw (docs/fairness.md).
 */
export function drawOrder(
  seed: string,
  candidates: readonly string[],
  /** Only the first `limit` of the order (its first positions are final after that many swaps). */
  limit = candidates.length,
): string[] {
  const order = [...candidates].sort();
  const swaps = Math.min(limit, order.length - 1);
  for (let k = 0; k < swaps; k += 1) {
    const h = hash48(k === 0 ? `underdog-draw:${seed}` : `underdog-draw:${seed}:${k}`);
    const j = k + (h % (order.length - k));
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return limit < order.length ? order.slice(0, limit) : order;
}

/**
 * The most players a prize's order names: a game's end (`GameEnded`, the live state, the record)
 * stays far below Kafka's 1 MB a message however many the last round eliminated, and no
 * administrator disqualifies a thousand winners in turn.
 */
export const PRIZE_ORDER_LIMIT = 1000;

/**
 * The order a game's prize follows, fixed at the reveal (docs/fairness.md): a draw's candidates
 * in their `drawOrder`; a last-standing winner first, then everyone the last round eliminated in
 * their `drawOrder`; no winner, none. At most `PRIZE_ORDER_LIMIT`: the first of that order.
 */
export function prizeOrder(
  seed: string,
  end:
    | { decidedBy: 'draw'; candidateUserIds: readonly string[] }
    | {
        decidedBy: 'last_standing';
        winnerUserId: string;
        lastRoundEliminatedUserIds: readonly string[];
      }
    | { decidedBy: 'no_winner' },
): string[] {
  switch (end.decidedBy) {
    case 'draw':
      return drawOrder(seed, end.candidateUserIds, PRIZE_ORDER_LIMIT);
    case 'last_standing':
      return [
        end.winnerUserId,
        ...drawOrder(
          seed,
          end.lastRoundEliminatedUserIds.filter((userId) => userId !== end.winnerUserId),
          PRIZE_ORDER_LIMIT - 1,
        ),
      ];
    case 'no_winner':
      return [];
  }
}

/** The first of `order` who is not disqualified: the prize's winner (undefined: nobody). */
export function firstEligible(
  order: readonly string[],
  disqualified: ReadonlySet<string>,
): string | undefined {
  return order.find((userId) => !disqualified.has(userId));
}

/** The commitment published before the game: SHA-256 of the seed's UTF-8 bytes, lower-case hex. */
export function drawSeedCommitment(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/**
 * One published game event, as one JSON line: the protobuf JSON of `GameEvent` (camelCase field
 * names, one case of the `kind` oneof present). Only what the check needs is read; other fields
 * and other cases pass through.
 */
const hex64 = z.string().regex(/^[0-9a-fA-F]{64}$/, 'a SHA-256 in hex (64 characters)');
export const publishedGameEventSchema = z.looseObject({
  gameId: z.string().min(1),
  tournamentId: z.string().optional(),
  occurredAt: z.string().optional(),
  gameStarted: z.looseObject({ drawSeedSha256: hex64.optional() }).optional(),
  gameEnded: z
    .looseObject({
      decidedBy: z.enum(['last_standing', 'draw', 'no_winner']),
      winnerUserId: z.string().optional(),
      drawSeed: z.string().optional(),
      drawCandidateUserIds: z.array(z.string()).optional(),
      drawOrderUserIds: z.array(z.string()).optional(),
    })
    .optional(),
  participantDisqualified: z
    .looseObject({
      userId: z.string().min(1),
      afterGame: z.boolean().optional(),
      winnerUserId: z.string().optional(),
    })
    .optional(),
});
export type PublishedGameEvent = z.infer<typeof publishedGameEventSchema>;

export class EventLinesError extends Error {
  readonly code = 'INVALID_EVENT_LINE';
}

/** Parses JSON lines (blank lines skipped); a bad line is an error naming its line number. */
export function parseEventLines(text: string): PublishedGameEvent[] {
  const events: PublishedGameEvent[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new EventLinesError(`line ${index + 1}: not JSON`);
    }
    const parsed = publishedGameEventSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new EventLinesError(
        `line ${index + 1}: ${issue.path.join('.') || '(event)'}: ${issue.message}`,
      );
    }
    events.push(parsed.data);
  });
  return events;
}

/** A disqualification after the game, as published, and the winner the published order gives. */
export interface ReplacementCheck {
  userId: string;
  publishedWinner: string | undefined;
  expectedWinner: string | undefined;
}

export interface DrawVerification {
  gameId: string;
  decidedBy: 'last_standing' | 'draw' | 'no_winner';
  committedSha256: string;
  revealedSeed: string;
  /** SHA-256(revealed seed) equals the commitment of the first event. */
  commitmentHolds: boolean;
  /** Sorted. */
  candidates: string[];
  recomputedWinner: string | undefined;
  publishedWinner: string | undefined;
  /**
   * The prize's order as `GameEnded.drawOrderUserIds` published it (undefined: not published,
   * a game ended before issue 37).
   */
  publishedOrder: string[] | undefined;
  /** The order the seed gives (a draw: over its candidates; last standing: over the rest). */
  recomputedOrder: string[] | undefined;
  /** The published order is the seed's (undefined: none published, or one that cannot be). */
  orderHolds: boolean | undefined;
  /** Every disqualification after the game, in the order published, with the winner it left. */
  replacements: ReplacementCheck[];
  /** Every check passed: the commitment, the candidates, the winner, the order, replacements. */
  verified: boolean;
  /** What failed, for a person. Empty when verified. */
  problems: string[];
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * Checks a game's draw from its published events alone: the first event of the game must carry
 * `gameStarted.drawSeedSha256`, `gameEnded` the revealed `drawSeed`; the candidates are
 * `gameEnded.drawCandidateUserIds` (`RoundResults` lists no players, issue 35), the prize's order
 * `gameEnded.drawOrderUserIds`: a draw's is `drawOrder(seed, candidates)`, a last-standing
 * winner's is the winner then the rest in their `drawOrder`. Every `participantDisqualified`
 * after the game must name as winner the first in that order not disqualified (issue 37).
 * Throws when the events cannot be checked at all (no such game, no commitment, no end, no seed);
 * returns `verified: false` with the problems when a check fails.
 */
export function verifyDraw(
  events: readonly PublishedGameEvent[],
  gameId?: string,
): DrawVerification {
  const id = gameId ?? events[0]?.gameId;
  if (id === undefined) throw new EventLinesError('no events');
  const game = events.filter((event) => event.gameId === id);
  if (game.length === 0) throw new EventLinesError(`no events of game ${id}`);
  const committed = game[0]!.gameStarted?.drawSeedSha256;
  if (committed === undefined) {
    throw new EventLinesError(`game ${id}: its first event carries no gameStarted.drawSeedSha256`);
  }
  const ends = game.filter((event) => event.gameEnded !== undefined);
  if (ends.length !== 1)
    throw new EventLinesError(`game ${id}: ${ends.length} gameEnded events, expected one`);
  const ended = ends[0]!.gameEnded!;
  if (ended.drawSeed === undefined)
    throw new EventLinesError(`game ${id}: gameEnded reveals no drawSeed`);

  const problems: string[] = [];
  const commitmentHolds = drawSeedCommitment(ended.drawSeed) === committed.toLowerCase();
  if (!commitmentHolds) problems.push('SHA-256 of the revealed seed is not the committed hash');

  const candidates = [...(ended.drawCandidateUserIds ?? [])].sort();
  const publishedOrder = ended.drawOrderUserIds;
  // Disqualified before the end (during the game): in a draw's order, never its winner.
  const endIndex = game.findIndex((event) => event.gameEnded !== undefined);
  const disqualifiedInGame = new Set(
    game
      .slice(0, endIndex)
      .flatMap((event) =>
        event.participantDisqualified ? [event.participantDisqualified.userId] : [],
      ),
  );

  let recomputedWinner: string | undefined;
  let recomputedOrder: string[] | undefined;
  if (ended.decidedBy === 'draw') {
    if (candidates.length === 0) problems.push('a draw without candidates');
    else {
      recomputedOrder = prizeOrder(ended.drawSeed, {
        decidedBy: 'draw',
        candidateUserIds: candidates,
      });
      // `drawWinner(seed, candidates)` unless that one was disqualified in the last round.
      recomputedWinner =
        firstEligible(recomputedOrder, disqualifiedInGame) ??
        firstEligible(drawOrder(ended.drawSeed, candidates), disqualifiedInGame);
    }
    if (recomputedWinner !== undefined && recomputedWinner !== ended.winnerUserId) {
      problems.push(
        `the published winner ${ended.winnerUserId ?? '(none)'} is not the recomputed ${recomputedWinner}`,
      );
    }
  } else if (
    ended.decidedBy === 'last_standing' &&
    publishedOrder !== undefined &&
    publishedOrder.length < PRIZE_ORDER_LIMIT
  ) {
    // The last round's eliminated are not listed anywhere else (RoundResults lists no players):
    // the check is that the winner comes first and the rest are in the seed's order. (An order
    // cut at the limit cannot be checked so: who was cut is not published.)
    recomputedOrder = ended.winnerUserId
      ? [ended.winnerUserId, ...drawOrder(ended.drawSeed, publishedOrder.slice(1))]
      : undefined;
    if (publishedOrder[0] !== ended.winnerUserId) {
      problems.push(
        `the published order does not begin with the last standing ${ended.winnerUserId ?? '(none)'}`,
      );
    }
  } else if (ended.decidedBy === 'no_winner') {
    recomputedOrder = [];
  }
  const orderHolds =
    publishedOrder === undefined ||
    (ended.decidedBy === 'last_standing' && publishedOrder.length >= PRIZE_ORDER_LIMIT)
      ? undefined
      : recomputedOrder !== undefined && same(publishedOrder, recomputedOrder);
  if (orderHolds === false) problems.push('the published order is not the order the seed gives');

  // Disqualifications: during the game (before the end) and after it, in the published order.
  const order = publishedOrder ?? recomputedOrder ?? [];
  const disqualified = new Set<string>();
  const replacements: ReplacementCheck[] = [];
  let afterEnd = false;
  for (const event of game) {
    if (event.gameEnded) afterEnd = true;
    const dq = event.participantDisqualified;
    if (!dq) continue;
    disqualified.add(dq.userId);
    if (!afterEnd || dq.afterGame !== true) continue;
    const publishedWinner = dq.winnerUserId || undefined;
    const expectedWinner = firstEligible(order, disqualified);
    replacements.push({ userId: dq.userId, publishedWinner, expectedWinner });
    if (publishedOrder === undefined && recomputedOrder === undefined) {
      problems.push(
        `${dq.userId} disqualified after the game: no published order to check the winner against`,
      );
    } else if (publishedWinner !== expectedWinner) {
      problems.push(
        `${dq.userId} disqualified after the game: the published winner ${publishedWinner ?? '(none)'} is not the next eligible in the order, ${expectedWinner ?? '(none)'}`,
      );
    }
  }
  return {
    gameId: id,
    decidedBy: ended.decidedBy,
    committedSha256: committed.toLowerCase(),
    revealedSeed: ended.drawSeed,
    commitmentHolds,
    candidates,
    recomputedWinner,
    publishedWinner: ended.winnerUserId,
    publishedOrder,
    recomputedOrder,
    orderHolds,
    replacements,
    verified: problems.length === 0,
    problems,
  };
}
