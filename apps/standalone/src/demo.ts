import { randomBytes } from 'node:crypto';
import type { RequestOrigin, GatewayClients, Games } from '@underdog/gateway';
import { isAppError, systemClock, type Clock, type Component, type Logger } from '@underdog/kit';
import {
  ActorSchema,
  GamePhase,
  TournamentStatus,
  create,
  timestampDate,
  timestampFromDate,
  type Actor,
  type Tournament,
} from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import { identityOf, type BotIdentity } from './demo-population';

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
  /** Default: the system clock. */
  clock?: Clock;
}

/** Every demo tournament's title starts with this, so the demo never touches an admin's own. */
export const DEMO_TITLE_PREFIX = 'Demo';

/**
 * The warm-up game, played by the first bots as soon as they are signed up, so that a finished
 * demo tournament with its statistics and round history is there from the first seconds: its
 * one round lasts 1 s (and its results as long; see the engine's `timingsOfGame`), and the
 * first bot alone picks the first image, so it wins in round 1.
 */
const WARM_UP_TITLE = `${DEMO_TITLE_PREFIX} Warm-up`;
const WARM_UP_PLAYERS = 3;
const WARM_UP_ROUND_SECONDS = 1;
const WARM_UP_STARTS_IN_MS = 300;
const WARM_UP_POLL_MS = 25;
/** The warm-up gives up (and says so) if its game is not over by then. */
const WARM_UP_MAX_MS = 60_000;
/** The live demo game's rounds. */
const BLITZ_ROUND_SECONDS = 10;
const RECONCILE_EVERY_MS = 10_000;
const DRIVE_EVERY_MS = 1_000;
/** The next live demo game starts this long after the previous one is over (or after start-up). */
const NEXT_GAME_AFTER_MS = 75_000;
/**
 * How many bots sign up at once. Each sign-up is three argon2 hashings in the auth service (the
 * password, the code, its check: the same cost as a person's, never lowered for bots); more at
 * once than the hashing threads only queues them and slows the live game sharing the CPU.
 */
const SIGN_UP_CONCURRENCY = 4;
/** How often a bot signing up looks for its code in the dev mailbox, and for how long. */
const MAILBOX_POLL_MS = 250;
const MAILBOX_ATTEMPTS = 80;
/** An upcoming demo tournament with its offline window open, this far ahead. */
const OFFLINE_DEMO_AHEAD_MS = 30 * 60_000;
/** Bots join a demo tournament once its start is this close. */
const JOIN_WITHIN_MS = 4 * 60_000;

/**
 * How a bot picks. The mix keeps a game going for several rounds: the crowd's favourite and the
 * obvious contrarian pick are eliminated early, the random pickers thin out round by round, and a
 * few bots doze off now and then.
 */
type Strategy = 'favourite' | 'contrarian' | 'random' | 'sleepy';
const strategies: Strategy[] = ['favourite', 'contrarian', 'random', 'random', 'sleepy'];

/** The option a bot picks this round, or undefined when it sits the round out. */
export function pickImage(strategy: Strategy, random: () => number): number | undefined {
  switch (strategy) {
    case 'favourite':
      return random() < 0.8 ? 0 : 1;
    case 'contrarian':
      return random() < 0.8 ? 3 : 2;
    case 'random':
      return Math.floor(random() * 4);
    case 'sleepy':
      return random() < 0.3 ? undefined : Math.floor(random() * 4);
  }
}

interface Bot {
  index: number;
  email: string;
  deviceId: string;
  sessionId: string;
  /** How it plays: a strategy of its own, or as one of the ring's accounts. */
  strategy: Strategy | 'ring';
  /** Where it plays from (demo-population.ts). */
  origin: BotIdentity;
}

/** The ring's votes of a round go one after the other, this far apart (ms, at random). */
const RING_VOTE_GAP_MS = { min: 150, max: 500 };

/**
 * The standalone demo (DEMO=off disables it): bot players — clearly named "Bot NNN" — that join
 * the demo tournaments and vote through the same `Games` functions people use, a warm-up game
 * they play in seconds at boot (so there are results to look at from the start), and a schedule
 * that always has a demo game coming up within minutes and one with its offline window open.
 * When a demo game ends, the next one is scheduled, so the demo never runs dry.
 */
export class Demo {
  private readonly clock: Clock;
  private readonly bots: Bot[] = [];
  private readonly joined = new Map<string, Set<number>>();
  /** The demo tournaments bots may join now (from the last reconciliation). */
  private joinable: string[] = [];
  private readonly out = new Map<string, Set<number>>();
  /** Per `<tournament>:<round>`, the bots whose vote of that round is already planned. */
  private readonly votesPlanned = new Map<string, Set<number>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private admin: Actor | undefined;
  private stopped = false;
  private created = 0;

  constructor(private readonly deps: DemoDependencies) {
    this.clock = deps.clock ?? systemClock;
  }

  component(): Component {
    return {
      name: 'demo',
      start: async () => {
        // Seeding runs in the background: the game is playable while the bots sign up.
        void this.seed().catch((error: unknown) =>
          this.deps.logger.error({ err: error }, 'demo: seeding failed'),
        );
      },
      stop: async () => {
        this.stopped = true;
        for (const timer of this.timers) clearTimeout(timer);
        this.timers.clear();
      },
    };
  }

  private async seed(): Promise<void> {
    const { clients, admin } = this.deps;
    const login = await clients.auth.login({
      email: admin.email,
      password: admin.password,
      deviceId: 'demo-admin',
    });
    if (!login.user) throw new Error('demo: the admin could not sign in');
    this.admin = create(ActorSchema, {
      userId: login.user.id,
      role: 'admin',
      isEmailVerified: true,
      deviceId: 'demo-admin',
      username: login.user.username,
    });
    void this.warmUp().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'demo: the warm-up game failed'),
    );
    // Both demo tournaments are scheduled at once, so the first live game starts a fixed time
    // after start-up; the bots sign up meanwhile and join (and play) as each becomes ready.
    await this.reconcile();
    this.every(RECONCILE_EVERY_MS, () => this.reconcile());
    this.every(DRIVE_EVERY_MS, () => this.drive());
    const started = this.clock.now().getTime();
    await this.signUpBots();
    this.deps.logger.info(
      { bots: this.bots.length, seconds: (this.clock.now().getTime() - started) / 1000 },
      'demo: bots ready',
    );
  }

  /** The warm-up game (see `WARM_UP_TITLE`), played by the first bots signed up. */
  private async warmUp(): Promise<void> {
    const started = this.clock.now().getTime();
    while (this.bots.length < Math.min(WARM_UP_PLAYERS, this.deps.bots)) {
      if (this.stopped || this.clock.now().getTime() - started > WARM_UP_MAX_MS) return;
      await sleep(WARM_UP_POLL_MS);
    }
    const players = this.bots.slice(0, WARM_UP_PLAYERS);
    if (!this.admin || players.length === 0) return;
    const tournamentId = await this.deps.scheduleWarmUp(this.admin, {
      title: WARM_UP_TITLE,
      description: 'Played by the bots in seconds at start-up: its results are ready to look at.',
      prize: '$100',
      startAt: new Date(this.clock.now().getTime() + WARM_UP_STARTS_IN_MS),
      roundTimeSeconds: WARM_UP_ROUND_SECONDS,
    });
    for (const bot of players) await this.deps.games.join(this.originOf(bot), tournamentId);
    const voting = await this.phaseOf(tournamentId, GamePhase.VOTING, started);
    await Promise.all(
      players.map((bot, index) => {
        const image = voting.images[index === 0 ? 0 : 1];
        if (!image) return Promise.resolve();
        return this.deps.games
          .vote(this.originOf(bot), {
            tournamentId,
            roundNumber: voting.roundNumber,
            imageId: image.id,
          })
          .catch((error: unknown) =>
            this.deps.logger.warn({ err: error, tournamentId }, 'demo: a warm-up vote failed'),
          );
      }),
    );
    const over = await this.phaseOf(tournamentId, GamePhase.FINISHED, started);
    this.deps.logger.info(
      {
        tournamentId,
        winner: over.winner?.username,
        seconds: (this.clock.now().getTime() - started) / 1000,
      },
      'demo: warm-up game played',
    );
  }

  /** The live game once it reaches `phase` (or the end); fails after `WARM_UP_MAX_MS`. */
  private async phaseOf(tournamentId: string, phase: GamePhase, since: number) {
    const visitor = this.deps.originOfSession('', 'demo');
    for (;;) {
      const game = await this.deps.games.liveGame(visitor, tournamentId);
      if (game.phase === phase || game.phase === GamePhase.FINISHED) return game;
      if (this.stopped || this.clock.now().getTime() - since > WARM_UP_MAX_MS) {
        throw new Error(`the warm-up game never reached ${GamePhase[phase]}`);
      }
      await sleep(WARM_UP_POLL_MS);
    }
  }

  private every(ms: number, task: () => Promise<void>): void {
    const tick = () => {
      if (this.stopped) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        task()
          .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'demo: tick failed'))
          .finally(tick);
      }, ms);
      this.timers.add(timer);
    };
    tick();
  }

  /**
   * Registers and verifies the bots (code from the dev mailbox), `SIGN_UP_CONCURRENCY` at a time;
   * each joins the demo games open for joining as soon as it is verified.
   */
  private async signUpBots(): Promise<void> {
    const run = `${randomBytes(3).toString('hex')}`;
    let next = 1;
    const worker = async () => {
      while (next <= this.deps.bots && !this.stopped) {
        const index = next;
        next += 1;
        try {
          const bot = await this.signUpBot(run, index);
          if (!bot) continue;
          this.bots.push(bot);
          for (const tournamentId of this.joinable) await this.joinBots(tournamentId);
        } catch (error) {
          this.deps.logger.warn({ err: error, index }, 'demo: a bot could not sign up');
        }
      }
    };
    await Promise.all(Array.from({ length: SIGN_UP_CONCURRENCY }, worker));
  }

  /** One bot, registered and verified; undefined if its code never came. */
  private async signUpBot(run: string, index: number): Promise<Bot | undefined> {
    const { clients } = this.deps;
    const number = String(index).padStart(3, '0');
    const email = `bot-${number}-${run}@demo.underdog.local`;
    const deviceId = `demo-bot-${run}-${number}`;
    const answer = await clients.auth.register({
      email,
      displayName: `Bot ${number}`,
      password: `bot${randomBytes(9).toString('base64url')}1a`,
      deviceId,
    });
    const sessionId = answer.session?.id ?? '';
    const signUpOrigin = identityOf(index, this.deps.bots);
    if (answer.user) {
      this.deps.registered?.(this.withIdentity(sessionId, deviceId, signUpOrigin), answer.user.id);
    }
    for (let attempt = 0; attempt < MAILBOX_ATTEMPTS && !this.stopped; attempt += 1) {
      const { messages } = await clients.notification.listMailbox({});
      const message = messages.find((candidate) => candidate.to === email);
      const code = message && /\b(\d{6})\b/.exec(message.text)?.[1];
      if (code) {
        await clients.auth.verifyEmail({ proof: { case: 'code', value: code }, sessionId });
        const origin = identityOf(index, this.deps.bots, true);
        return {
          index,
          email,
          deviceId,
          sessionId,
          strategy: origin.ring ? 'ring' : (strategies[index % strategies.length] ?? 'random'),
          origin,
        };
      }
      await sleep(MAILBOX_POLL_MS);
    }
    return undefined;
  }

  /** Keeps a demo game coming up and one with its offline window open; bots join the next one. */
  private async reconcile(): Promise<void> {
    const now = this.clock.now().getTime();
    const { tournaments } = await this.deps.clients.tournament.listTournaments({});
    const demo = tournaments.filter(
      (t) => t.title.startsWith(DEMO_TITLE_PREFIX) && !t.title.startsWith(WARM_UP_TITLE),
    );
    const startOf = (t: Tournament) => (t.startAt ? timestampDate(t.startAt).getTime() : 0);
    const upcoming = demo.filter((t) => t.status === TournamentStatus.UPCOMING);
    const live = demo.filter((t) => t.status === TournamentStatus.LIVE);
    const joinable: string[] = [];
    if (live.length === 0 && !upcoming.some((t) => startOf(t) - now <= JOIN_WITHIN_MS)) {
      const id = await this.createTournament({
        title: `${DEMO_TITLE_PREFIX} Blitz #${this.created + 1}`,
        description: `A quick demo game with ${BLITZ_ROUND_SECONDS}-second rounds against bots. Join in!`,
        prize: '$5,000',
        startAt: new Date(now + (this.deps.nextGameAfterMs ?? NEXT_GAME_AFTER_MS)),
        roundTimeSeconds: BLITZ_ROUND_SECONDS,
      });
      joinable.push(id);
    }
    if (!upcoming.some((t) => startOf(t) - now > 10 * 60_000)) {
      await this.createTournament({
        title: `${DEMO_TITLE_PREFIX} Offline Cup #${this.created + 1}`,
        description: 'Pre-register your 17 choices now, or play live when it starts.',
        prize: '$10,000',
        startAt: new Date(now + OFFLINE_DEMO_AHEAD_MS),
        roundTimeSeconds: 15,
      });
    }
    for (const tournament of [...upcoming, ...live]) {
      if (
        tournament.status === TournamentStatus.UPCOMING &&
        startOf(tournament) - now > JOIN_WITHIN_MS
      )
        continue;
      joinable.push(tournament.id);
    }
    this.joinable = joinable;
    for (const tournamentId of joinable) await this.joinBots(tournamentId);
  }

  private async createTournament(draft: DemoTournamentDraft): Promise<string> {
    this.created += 1;
    const { tournament } = await this.deps.clients.tournament.createTournament({
      actor: this.admin,
      title: draft.title,
      description: draft.description,
      prize: draft.prize,
      startAt: timestampFromDate(draft.startAt),
      roundTimeSeconds: draft.roundTimeSeconds,
    });
    this.deps.logger.info(
      { title: draft.title, startAt: draft.startAt },
      'demo: tournament scheduled',
    );
    return tournament?.id ?? '';
  }

  private async joinBots(tournamentId: string): Promise<void> {
    const joined = this.joined.get(tournamentId) ?? new Set<number>();
    this.joined.set(tournamentId, joined);
    for (const bot of this.bots) {
      if (joined.has(bot.index) || this.stopped) continue;
      try {
        await this.deps.games.join(this.originOf(bot), tournamentId);
        joined.add(bot.index);
      } catch (error) {
        const reason = reasonOf(error);
        // Too late to join: the game went on without this bot. Anything else is worth a look.
        if (reason === 'JOIN_CLOSED') return;
        this.deps.logger.warn({ err: error, tournamentId }, 'demo: a bot could not join');
        return;
      }
    }
  }

  /** Casts the bots' votes of a round that just opened, spread over its voting time. */
  private async drive(): Promise<void> {
    const visitor = this.deps.originOfSession('', 'demo');
    for (const [tournamentId, joined] of this.joined) {
      if (joined.size === 0) continue;
      const game = await this.deps.games.liveGame(visitor, tournamentId);
      if (game.phase === GamePhase.FINISHED) {
        this.joined.delete(tournamentId);
        this.out.delete(tournamentId);
        for (const key of this.votesPlanned.keys()) {
          if (key.startsWith(`${tournamentId}:`)) this.votesPlanned.delete(key);
        }
        continue;
      }
      if (game.phase !== GamePhase.VOTING) continue;
      const deadline = game.phaseEndsAt ? timestampDate(game.phaseEndsAt).getTime() : 0;
      const window = deadline - this.clock.now().getTime() - 1_200;
      // Too close to the deadline to plan votes (bots that joined this late sit the round out).
      if (window <= 0) continue;
      const key = `${tournamentId}:${game.roundNumber}`;
      const planned = this.votesPlanned.get(key) ?? new Set<number>();
      this.votesPlanned.set(key, planned);
      const out = this.out.get(tournamentId) ?? new Set<number>();
      this.out.set(tournamentId, out);
      const ring: Bot[] = [];
      for (const bot of this.bots) {
        if (!joined.has(bot.index) || out.has(bot.index) || planned.has(bot.index)) continue;
        planned.add(bot.index);
        if (bot.strategy === 'ring') {
          ring.push(bot);
          continue;
        }
        const option = pickImage(bot.strategy, Math.random);
        if (option === undefined) continue;
        const image = game.images[option];
        if (!image) continue;
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            void this.vote(bot, tournamentId, game.roundNumber, image.id, out);
          },
          200 + Math.random() * window,
        );
        this.timers.add(timer);
      }
      this.planRingVotes(ring, tournamentId, game.roundNumber, game.images, window, out);
    }
  }

  /**
   * The ring votes as a covering set: its accounts one after the other, each on another image
   * (turning with the round), so one of them is always on the least popular image.
   */
  private planRingVotes(
    ring: Bot[],
    tournamentId: string,
    roundNumber: number,
    images: readonly { id: string }[],
    window: number,
    out: Set<number>,
  ): void {
    if (ring.length === 0 || images.length === 0) return;
    const span = ring.length * RING_VOTE_GAP_MS.max;
    let at = 200 + Math.random() * Math.max(0, window - span);
    ring.forEach((bot, k) => {
      const image = images[(k + roundNumber) % images.length]!;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.vote(bot, tournamentId, roundNumber, image.id, out);
      }, at);
      this.timers.add(timer);
      at += RING_VOTE_GAP_MS.min + Math.random() * (RING_VOTE_GAP_MS.max - RING_VOTE_GAP_MS.min);
    });
  }

  private async vote(
    bot: Bot,
    tournamentId: string,
    roundNumber: number,
    imageId: string,
    out: Set<number>,
  ): Promise<void> {
    try {
      await this.deps.games.vote(this.originOf(bot), { tournamentId, roundNumber, imageId });
    } catch (error) {
      const reason = reasonOf(error);
      if (reason === 'ELIMINATED' || reason === 'NOT_PARTICIPANT') out.add(bot.index);
      else if (reason !== 'VOTING_CLOSED' && reason !== 'WRONG_ROUND')
        this.deps.logger.warn({ err: error, tournamentId }, 'demo: a bot vote was refused');
    }
  }

  private originOf(bot: Bot): RequestOrigin {
    return this.withIdentity(bot.sessionId, bot.deviceId, bot.origin);
  }

  /** The bot's session, as if from its own network and browser (see demo-population.ts). */
  private withIdentity(sessionId: string, deviceId: string, identity: BotIdentity): RequestOrigin {
    return {
      ...this.deps.originOfSession(sessionId, deviceId),
      ip: identity.ip,
      userAgent: identity.userAgent,
    };
  }
}

function reasonOf(error: unknown): string | undefined {
  const appError = isAppError(error) ? error : appErrorFromRpc(error);
  return appError.reason ?? appError.code;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
