import { EventLinesError, parseEventLines, verifyDraw } from './draw';

export interface VerifyDrawIo {
  readInput(path: string): string;
  out(line: string): void;
  err(line: string): void;
}

const usage = 'usage: verify-draw <events.jsonl | -> [gameId]';

/**
 * The draw verifier's command line (tools/verify-draw.ts), kept here so it is tested in-process.
 * Returns the exit code: 0 verified, 1 a check failed, 2 the events cannot be checked.
 */
export function verifyDrawCommand(argv: readonly string[], io: VerifyDrawIo): number {
  const [path, gameId] = argv;
  if (path === undefined || argv.length > 2) {
    io.err(usage);
    return 2;
  }
  let text: string;
  try {
    text = io.readInput(path);
  } catch (error) {
    io.err(`cannot read ${path}: ${(error as Error).message}`);
    return 2;
  }
  try {
    const result = verifyDraw(parseEventLines(text), gameId);
    io.out(`game              ${result.gameId}`);
    io.out(`decided by        ${result.decidedBy}`);
    io.out(`committed SHA-256 ${result.committedSha256}`);
    io.out(`revealed seed     ${JSON.stringify(result.revealedSeed)}`);
    io.out(`commitment        ${result.commitmentHolds ? 'holds' : 'DOES NOT HOLD'}`);
    if (result.decidedBy === 'draw') {
      io.out(
        `candidates        ${result.candidates.length} (sorted: ${result.candidates.join(', ')})`,
      );
      io.out(`recomputed winner ${result.recomputedWinner ?? '(none)'}`);
      io.out(`published winner  ${result.publishedWinner ?? '(none)'}`);
    } else {
      io.out('no draw: the game was not decided by the draw');
    }
    if (result.publishedOrder !== undefined) {
      io.out(`published order   ${result.publishedOrder.join(', ') || '(none)'}`);
      io.out(
        `order             ${
          result.orderHolds === undefined
            ? 'not checkable (cut at the limit; the last round is not listed)'
            : result.orderHolds
              ? 'holds'
              : 'DOES NOT HOLD'
        }`,
      );
    } else if (result.recomputedOrder !== undefined) {
      io.out(`recomputed order  ${result.recomputedOrder.join(', ') || '(none)'} (none published)`);
    }
    for (const replacement of result.replacements) {
      io.out(
        `after the game    ${replacement.userId} disqualified: winner ${replacement.publishedWinner ?? '(none)'}, next eligible ${replacement.expectedWinner ?? '(none)'}`,
      );
    }
    for (const problem of result.problems) io.err(`problem: ${problem}`);
    io.out(result.verified ? 'verified' : 'NOT VERIFIED');
    return result.verified ? 0 : 1;
  } catch (error) {
    if (error instanceof EventLinesError) {
      io.err(error.message);
      return 2;
    }
    throw error;
  }
}
