/**
 * The demo's votes: each round that opens, the bots still in cast theirs through `Games`, spread
 * over its voting time — each by its own strategy, the ring as a covering set (run by `Demo`).
 */
import type { Clock } from '@underdog/kit';
import { GamePhase, timestampDate } from '@underdog/proto';
import { originOf, pickImage, reasonOf, type Bot } from './demo-bots';
import type { DemoDependencies } from './demo-dependencies';

/** The ring's votes of a round go one after the other, this far apart (ms, at random). */
const RING_VOTE_GAP_MS = { min: 150, max: 500 };

/** The bots' votes in the demo games they joined; timers go in the demo's own set. */
export class DemoVoting {
  private readonly out = new Map<string, Set<number>>();
  /** Per `<tournament>:<round>`, the bots whose vote of that round is already planned. */
  private readonly votesPlanned = new Map<string, Set<number>>();

  constructor(
    private readonly deps: DemoDependencies,
    private readonly clock: Clock,
    /** The demo's bots, growing as they sign up. */
    private readonly bots: readonly Bot[],
    /** Per demo tournament, the bots that joined it (kept by `Demo`). */
    private readonly joined: Map<string, Set<number>>,
    private readonly timers: Set<NodeJS.Timeout>,
  ) {}

  /** Casts the bots' votes of a round that just opened, spread over its voting time. */
  async drive(): Promise<void> {
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
      await this.deps.games.vote(originOf(this.deps, bot), { tournamentId, roundNumber, imageId });
    } catch (error) {
      const reason = reasonOf(error);
      if (reason === 'ELIMINATED' || reason === 'NOT_PARTICIPANT') out.add(bot.index);
      else if (reason !== 'VOTING_CLOSED' && reason !== 'WRONG_ROUND')
        this.deps.logger.warn({ err: error, tournamentId }, 'demo: a bot vote was refused');
    }
  }
}
