import { incrementIfBelow, type LiveStore } from '@underdog/store';
import { sha256 } from './secrets';

/**
 * The one verification e-mail a minute per address, counted in the live store for every address,
 * known or not: the limit then behaves the same for all of them and reveals no accounts.
 */
export class ResendThrottle {
  constructor(
    private readonly store: LiveStore,
    private readonly windowMs: number,
  ) {}

  /** True when a send is allowed now (and counts it); false within the window of the last one. */
  async claim(email: string): Promise<boolean> {
    const count = await this.store.run(
      incrementIfBelow,
      [`auth:resend:${sha256(email)}`],
      [1, this.windowMs],
    );
    return count !== -1;
  }
}
