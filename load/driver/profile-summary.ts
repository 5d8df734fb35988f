// `tsx load/driver/profile-summary.ts <file.cpuprofile> [top] [last-seconds]`: where a V8 CPU
// profile spent its time, by function (self time; bundles keep file and line as recorded). With
// `last-seconds`, only the profile's last seconds count: the bench stops its processes right
// after the round's results, so `30` is the round (voting and results) without connecting.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top] [last-seconds]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map<number, number>();
const samples = profile.samples ?? [];
const deltas = profile.timeDeltas ?? [];
// Sample times in µs since the profile's start, to keep only the last seconds if asked.
const sampledAt: number[] = [];
deltas.reduce((at, delta, index) => (sampledAt[index] = at + delta), profile.startTime);
const from = lastArg ? profile.endTime - Number(lastArg) * 1e6 : -Infinity;
samples.forEach((id, index) => {
  if ((sampledAt[index] ?? 0) < from) return;
  selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[index] ?? 0) / 1000);
});
const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
const byFunction = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const url = frame.url.replace(/^.*\/(node_modules|dist|src)\//, '$1/');
  const key = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
}
const top = Number(topArg ?? 25);
console.log(`${file}: ${(total / 1000).toFixed(1)} s sampled`);
for (const [key, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(
    `${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${key}`,
  );
}
