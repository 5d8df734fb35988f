/**
 * What the demo needs from the standalone process, the draft of a demo tournament it schedules,
 * and the title every demo tournament starts with.
 */
import type { RequestOrigin, GatewayClients, Games } from '@underdog/gateway';
import type { Clock, Logger } from '@underdog/kit';
import type { Actor } from '@underdog/proto';

/** A demo tournament to schedule, as an admin would type it. */
export interface DemoTournamentDraft {
  title: string;
  description: string;
  prize: string;
  startAt: Date;
  roundTimeSeconds: number;
}

/** What the demo needs from the standalone process. */
export interface DemoDependencies {
  logger: Logger;
  clients: GatewayClients;
  games: Games;
  /**
   * Schedules the warm-up tournament with the tournament service's own use case, not its edge:
   * its rounds are shorter than the rules allow an admin's tournament. Answers its id.
   */
  scheduleWarmUp(admin: Actor, draft: DemoTournamentDraft): Promise<string>;
  originOfSession(sessionId: string, deviceId: string): RequestOrigin;
  /**
   * Publishes a registration's fair-play signal, as the gateway's own register does (the bots
   * register with the auth service directly); absent: none (the report then has no
   * registration evidence).
   */
  registered?(origin: RequestOrigin, userId: string): void;
  admin: { email: string; password: string };
  bots: number;
  /**
   * How long after start-up (and after a game ends) the next live demo game starts; the first
   * is scheduled at once, whatever the bots' sign-up takes (bots join as they become ready).
   */
  nextGameAfterMs?: number;
  /** The live demo game's round time; default 10 s (the rules' least is 5 s). */
  blitzRoundSeconds?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

/** Every demo tournament's title starts with this, so the demo never touches an admin's own. */
export const DEMO_TITLE_PREFIX = 'Demo';
