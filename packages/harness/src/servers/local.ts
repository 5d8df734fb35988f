import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalProcess } from '../process';

/** A scratch folder for one server's data; removed when the server stops. */
export function scratchDir(server: string): string {
  return mkdtempSync(join(tmpdir(), `underdog-${server}-`));
}

/** Stops the process when readiness fails, so a failed start leaves nothing running. */
export async function readyOrStop<T>(proc: LocalProcess, ready: Promise<T>): Promise<T> {
  try {
    return await ready;
  } catch (error) {
    await proc.stop();
    throw error;
  }
}
