import { harnessGlobal } from './shared';

export default async function globalTeardown(): Promise<void> {
  const infra = harnessGlobal.underdogInfra;
  harnessGlobal.underdogInfra = undefined;
  await infra?.stop();
}
