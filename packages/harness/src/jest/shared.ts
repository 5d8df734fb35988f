import type { Infra } from '../types';

/** Jest runs global setup and teardown in one process; this slot carries the Infra between them. */
export interface HarnessGlobal {
  underdogInfra?: Infra;
}

export const harnessGlobal = globalThis as typeof globalThis & HarnessGlobal;
