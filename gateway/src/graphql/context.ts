import type { Clock, Logger } from '@underdog/kit';
import type { Accounts } from '../accounts';
import type { Advertisements } from '../ads';
import type { GatewayClients } from '../clients';
import type { FairPlayReads } from '../fair-play';
import type { FairPlaySignals } from '../fair-play-signals';
import type { GameRecordsReads } from '../records';
import type { Games } from '../games';
import type { RequestOrigin } from '../session';
import type { Tournaments } from '../tournaments';

/** What every resolver gets: who is calling (session, cookie setter) and what to delegate to. */
export interface GraphQLContext {
  origin: RequestOrigin;
  accounts: Accounts;
  tournaments: Tournaments;
  advertisements: Advertisements;
  records: GameRecordsReads;
  games: Games;
  /** The fair-play report (admin). */
  fairPlay: FairPlayReads;
  /** Fair-play signals, published after a join succeeded (fire-and-forget; a vote's: Games). */
  signals: FairPlaySignals;
  clients: GatewayClients;
  logger: Logger;
  /** The gateway's clock (a live game's time left is measured by it). */
  clock: Clock;
}

/** A domain module's resolvers; each field resolver translates its arguments and delegates. */
export type Resolvers = Record<
  string,
  Record<string, (parent: unknown, args: never, context: GraphQLContext) => unknown>
>;
