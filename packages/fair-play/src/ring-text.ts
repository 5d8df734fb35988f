// How the ring detector words and rounds its evidence (rings.ts and its parts).

export function shortLabel(label: string): string {
  const bare = label.includes(':') ? label.slice(label.indexOf(':') + 1) : label;
  return bare.length > 10 ? `${bare.slice(0, 8)}…` : bare;
}

export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function numeric(a: number, b: number): number {
  return a - b;
}
