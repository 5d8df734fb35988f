// Recomputes a game's final draw from its published events alone (docs/fairness.md, "Recomputing
// a draw"): `pnpm exec tsx tools/verify-draw.ts events.jsonl [gameId]`, or the events on stdin
// (`... | pnpm exec tsx tools/verify-draw.ts -`). Each line is one `game.events` event as protobuf
// JSON. Exit code 0: the commitment holds and the published winner is the recomputed one;
// 1: a check failed; 2: the events cannot be checked (unreadable, no commitment, no end).
import { readFileSync } from 'node:fs';
import { verifyDrawCommand } from '../packages/fair-play/src/verify-draw-command';

process.exitCode = verifyDrawCommand(process.argv.slice(2), {
  readInput: (path) => readFileSync(path === '-' ? 0 : path, 'utf8'),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
