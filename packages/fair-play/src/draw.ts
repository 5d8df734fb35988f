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
  const value = createHash('sha256').update(`underdog-draw:${seed}`).digest().readUIntBE(0, 6);
  return sorted[value % sorted.length]!;
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
  /** Every check passed: the commitment, the candidates, the winner. */
  verified: boolean;
  /** What failed, for a person. Empty when verified. */
  problems: string[];
}

/**
 * Checks a game's draw from its published events alone: the first event of the game must carry
 * `gameStarted.drawSeedSha256`, `gameEnded` the revealed `drawSeed`; the candidates are
 * `gameEnded.drawCandidateUserIds` (`RoundResults` lists no players, issue 35). Throws when the events cannot be checked at all (no such game, no commitment,
 * no end, no seed); returns `verified: false` with the problems when a check fails.
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

  let recomputedWinner: string | undefined;
  if (ended.decidedBy === 'draw') {
    if (candidates.length === 0) problems.push('a draw without candidates');
    else recomputedWinner = drawWinner(ended.drawSeed, candidates);
    if (recomputedWinner !== undefined && recomputedWinner !== ended.winnerUserId) {
      problems.push(
        `the published winner ${ended.winnerUserId ?? '(none)'} is not the recomputed ${recomputedWinner}`,
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
    verified: problems.length === 0,
    problems,
  };
}
