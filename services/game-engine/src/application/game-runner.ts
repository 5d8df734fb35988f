import type { Logger } from '@underdog/kit';
import type { GameState } from '@underdog/live-game';
import type { GameEventKind } from '../adapters/game-events';
import type { Expectation } from '../adapters/live-games';
import { freshMemory, nextStep, type LoopAction, type LoopMemory } from '../domain/round-loop';
import { LeaseKeeper, LeaseLost } from './lease-keeper';
import { RecordsWriter } from './records-writer';
import { afterAdvertisement, afterResults } from './steps/after-results';
import { begin } from './steps/begin';
import { awaitVotes, captureVotes } from './steps/capture';
import { VotesWait } from './votes-wait';
import { closeVoting } from './steps/close-voting';
import type { Landing, RunnerDependencies, Step, StepContext } from './steps/context';
import { finish } from './steps/finish';
import { announceRound, castOfflineChoices } from './steps/open-round';
import { tally } from './steps/tally';

export { participantRecord } from './game-facts';
export type { RunnerDependencies, VotesProgress } from './steps/context';

const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/**
 * The wait before the `attempt`th retry of a failed step (1, 2, …): doubling from 200 ms, capped
 * at 5 s, less a random share of up to half, so that the replicas' runners — all their games
 * failing together when the store goes away — do not come back in lockstep.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt - 1, 20));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * Runs one tournament's game while this replica holds its lease: renews the lease, reads the
 * state from the live store and makes the step the phase and the clock call for (`nextStep`
 * decides; each action's step is in `steps/`). Every step is a fenced compare-and-set on
 * (phase, round), so a replica taking over resumes exactly where the store says, at the stored
 * deadlines, and a replica that lost the lease cannot write. Events are published after their
 * step is stored, with deterministic ids.
 */
export class GameRunner {
  /** The game's lease, and the fence every step carries. */
  private readonly lease: LeaseKeeper;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** What this runner remembers between steps (see `nextStep`). */
  private memory: LoopMemory = freshMemory();
  /** The game's records, written in the background and in order. */
  private readonly records: RecordsWriter;
  /** A stored step's announcement that failed: made before anything else once the store is back. */
  private pendingAnnouncement: { at: Landing; announce: () => Promise<void> } | undefined;
  /** Steps that failed in a row (the store or the bus unreachable). */
  private failures = 0;
  private firstFailureAt = 0;
  /** The game's state was seen here: a later missing state is a loss, not a game not yet made. */
  private seenGame = false;
  private readonly log: Logger;
  /** This runner as its steps see it. */
  private readonly game: StepContext;
  readonly finished: Promise<void>;

  constructor(
    readonly tournamentId: string,
    private readonly deps: RunnerDependencies,
  ) {
    this.log = deps.logger.child({ tournamentId });
    this.records = new RecordsWriter(deps.timings.recordsDelayMs, this.log, deps.clock);
    this.lease = new LeaseKeeper(deps.live, tournamentId, deps.owner, deps.lease, this.log);
    this.game = {
      tournamentId,
      deps,
      log: this.log,
      records: this.records,
      votesWait: new VotesWait(deps.metrics, this.log),
      now: () => this.now(),
      advance: (expected, fields) => this.advance(expected, fields),
      eliminate: async (at, userIds) =>
        this.fenced(await deps.live.eliminate(tournamentId, this.lease.token, at, userIds)),
      emit: (state, kind, idSuffix, at) => this.emit(state, kind, idSuffix, at),
      announce: (at, announcement) => this.announce(at, announcement),
      remember: (change) => {
        this.memory = { ...this.memory, ...change };
      },
    };
    // A runner that stops (or loses the game) while its round waits for votes waits no more.
    this.finished = this.loop().finally(() => this.game.votesWait.end());
  }

  /** The time in ms since the epoch, the unit of the stored deadlines. */
  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /** Stops acting; `release` gives the lease up so another replica takes over at once. */
  async stop(release: boolean): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.finished;
    if (release) await this.lease.release();
  }

  private async loop(): Promise<void> {
    const { live } = this.deps;
    while (!this.stopped) {
      let waitMs = this.deps.lease.renewEveryMs;
      try {
        if (!(await this.lease.acquire())) {
          this.deps.metrics.fenced.inc({ at: 'lease' });
          this.log.warn(
            { fence: this.lease.token },
            'another replica holds the game; stepping back',
          );
          return;
        }
        const state = await live.state(this.tournamentId);
        if (!state?.gameId) {
          if (this.seenGame) {
            // Only a store that lost its data (restarted without persistence) does this.
            this.log.error(
              'the game is gone from the live store (restarted without its data?); it cannot resume',
            );
          }
          return;
        }
        this.seenGame = true;
        const next = await this.lease.holding(async () =>
          // An announcement made again may move the round's deadline (`openRound`): read again.
          (await this.announcePending(state)) ? 0 : this.step(state),
        );
        this.recovered();
        if (next === 'done') return;
        waitMs = Math.max(0, Math.min(waitMs, next));
      } catch (error) {
        if (error instanceof LeaseLost) {
          this.deps.metrics.fenced.inc({ at: 'step' });
          this.log.warn(
            { fence: this.lease.token },
            'fenced out: another replica took the game over',
          );
          return;
        }
        // Never given up: the game waits for its store (or bus) for as long as it takes, and
        // resumes from what is stored. Its lease lapses meanwhile, so another replica that can
        // reach the store takes the game over; this one is then fenced out.
        this.failures += 1;
        if (this.failures === 1) this.firstFailureAt = this.now();
        waitMs = retryDelayMs(this.failures);
        const context = { err: error, attempt: this.failures, retryInMs: waitMs };
        if (this.failures === 1) this.log.error(context, 'game step failed; retrying');
        else this.log.warn(context, 'game step failed again; retrying');
      }
      if (waitMs > 0 && !this.stopped) await this.sleep(waitMs);
    }
  }

  private recovered(): void {
    if (this.failures === 0) return;
    this.log.info(
      { failedAttempts: this.failures, outageMs: this.now() - this.firstFailureAt },
      'game resumed',
    );
    this.failures = 0;
  }

  /** Makes a failed announcement again if the game still stands where it landed (true: made). */
  private async announcePending(state: GameState): Promise<boolean> {
    const pending = this.pendingAnnouncement;
    if (!pending) return false;
    const made = state.phase === pending.at.phase && state.round === pending.at.round;
    if (made) await pending.announce();
    this.pendingAnnouncement = undefined;
    return made;
  }

  /**
   * What follows a stored step: its events (deterministic ids, so a repeat is dropped
   * downstream), offline choices (once per vote id). If it fails — the store or the bus went
   * away between the step and its announcement — the loop makes it again before anything else,
   * since the stored phase alone would not: without this, a round opened during an outage was
   * never announced.
   */
  private async announce(at: Landing, announcement: () => Promise<void>): Promise<void> {
    this.pendingAnnouncement = { at, announce: announcement };
    await announcement();
    this.pendingAnnouncement = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One step: `nextStep` decides from the state and the time, this performs its actions. */
  private async step(state: GameState): Promise<Step> {
    const now = this.now();
    const { graceMs, voteTotalEveryMs } = this.deps.timings;
    const decided = nextStep({ game: state, memory: this.memory }, now, {
      graceMs,
      voteTotalEveryMs,
    });
    // The decided memory is kept where the loop kept it before its read or its publication (a
    // failed read starts no votes' wait; the cast and announced rounds are set by their steps).
    const keep = () => {
      const { offlineCastRound, announcedRound } = this.memory;
      this.memory = { ...decided.memory, offlineCastRound, announcedRound };
    };
    for (const action of decided.actions) {
      const next = await this.perform(state, action, now, keep);
      if (next !== undefined) return next;
    }
    return decided.wakeInMs;
  }

  /** Performs one action; a `Step` ends the step there (the game moved, or it waits). */
  private async perform(
    state: GameState,
    action: LoopAction,
    now: number,
    keep: () => void,
  ): Promise<Step | undefined> {
    const { game } = this;
    switch (action.kind) {
      case 'begin':
        return begin(game, state, now);
      case 'castOffline': {
        const offlineRemaining = await castOfflineChoices(game, state);
        if (action.announce) await announceRound(game, state, offlineRemaining);
        return undefined;
      }
      case 'closeVoting':
        return closeVoting(game, state, action.phaseEndsAt);
      case 'publishVoteTotal':
        keep();
        await this.emit(
          state,
          {
            case: 'voteTotal',
            value: { roundNumber: action.round, totalVotes: action.totalVotes },
          },
          `${action.round}:${action.totalVotes}`,
        );
        return undefined;
      case 'captureVotes':
        return captureVotes(game, state, action);
      case 'awaitVotes':
        return awaitVotes(game, state, action, keep);
      case 'tally':
        return tally(game, state);
      case 'endResults':
        return afterResults(game, state, action.ended, now);
      case 'endAdvertisement':
        return afterAdvertisement(game, state, action.finishing, now);
      case 'finish':
        return finish(game, state);
    }
  }

  /** A fenced step; false when the game already moved on (another step won). */
  private async advance(
    expected: Expectation,
    fields: Record<string, string | number>,
  ): Promise<boolean> {
    const { live } = this.deps;
    return this.fenced(await live.advance(this.tournamentId, this.lease.token, expected, fields));
  }

  /** A fenced write's reply: true when made, false when the game moved on; fenced out throws. */
  private fenced(reply: 'OK' | 'FENCED' | 'STALE'): boolean {
    if (reply === 'FENCED') throw new LeaseLost();
    return reply === 'OK';
  }

  private emit(state: GameState, kind: GameEventKind, idSuffix: string, at?: number) {
    const context = {
      tournamentId: this.tournamentId,
      gameId: state.gameId,
      at: new Date(at ?? this.now()),
    };
    return this.deps.events.publish(context, kind, idSuffix);
  }

  /**
   * Writes the records still waiting for their delay at once, and resolves when every write
   * asked for so far is done: a replica that stops cleanly leaves no record behind.
   */
  flushRecords(): Promise<void> {
    return this.records.flush();
  }

  /** Resolves when every record write asked for so far is done (delays included). */
  recordsDone(): Promise<void> {
    return this.records.done();
  }
}
