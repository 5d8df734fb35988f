import { randomBytes } from 'node:crypto';
import type { RequestOrigin } from '@underdog/gateway';
import { systemClock, type Clock, type Component } from '@underdog/kit';
import {
  ActorSchema,
  TournamentStatus,
  create,
  timestampDate,
  timestampFromDate,
  type Actor,
  type Tournament,
} from '@underdog/proto';
import { originOf, reasonOf, signUpBot, type Bot } from './demo-bots';
import {
  DEMO_TITLE_PREFIX,
  type DemoDependencies,
  type DemoTournamentDraft,
} from './demo-dependencies';
import { DemoVoting } from './demo-votes';
import { playWarmUp, WARM_UP_TITLE } from './demo-warm-up';

/** The live demo game's rounds, unless the options say otherwise. */
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
/** An upcoming demo tournament with its offline window open, this far ahead. */
const OFFLINE_DEMO_AHEAD_MS = 30 * 60_000;
/** Bots join a demo tournament once its start is this close. */
const JOIN_WITHIN_MS = 4 * 60_000;

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
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly voting: DemoVoting;
  private admin: Actor | undefined;
  private stopped = false;
  private created = 0;

  constructor(private readonly deps: DemoDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.voting = new DemoVoting(deps, this.clock, this.bots, this.joined, this.timers);
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
    void playWarmUp({
      deps: this.deps,
      clock: this.clock,
      bots: this.bots,
      admin: this.admin,
      isStopped: () => this.stopped,
    }).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'demo: the warm-up game failed'),
    );
    // Both demo tournaments are scheduled at once, so the first live game starts a fixed time
    // after start-up; the bots sign up meanwhile and join (and play) as each becomes ready.
    await this.reconcile();
    this.every(RECONCILE_EVERY_MS, () => this.reconcile());
    this.every(DRIVE_EVERY_MS, () => this.voting.drive());
    const started = this.clock.now().getTime();
    await this.signUpBots();
    this.deps.logger.info(
      { bots: this.bots.length, seconds: (this.clock.now().getTime() - started) / 1000 },
      'demo: bots ready',
    );
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
          const bot = await signUpBot(this.deps, run, index, () => this.stopped);
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
      const blitzSeconds = this.deps.blitzRoundSeconds ?? BLITZ_ROUND_SECONDS;
      const id = await this.createTournament({
        title: `${DEMO_TITLE_PREFIX} Blitz #${this.created + 1}`,
        description: `A quick demo game with ${blitzSeconds}-second rounds against bots. Join in!`,
        prize: '$5,000',
        startAt: new Date(now + (this.deps.nextGameAfterMs ?? NEXT_GAME_AFTER_MS)),
        roundTimeSeconds: blitzSeconds,
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

  private originOf(bot: Bot): RequestOrigin {
    return originOf(this.deps, bot);
  }
}
