import type { Clock, Logger } from '@underdog/kit';
import { VOTES_CLOSING, type GameState, type StoredAdvertisement } from '@underdog/live-game';
import { timestampFromDate, type Advertisement } from '@underdog/proto';
import { offlinePickImageId, roundImages } from '@underdog/rules';
import type { AdPosition, AdsCatalog } from '../adapters/ads-catalog';
import type { GameEventKind, GameEventsPublisher } from '../adapters/game-events';
import {
  roundFactsField,
  type Expectation,
  type LiveGames,
  type Participant,
  type RoundFacts,
} from '../adapters/live-games';
import {
  drawSeedCommitment,
  newDrawSeed,
  resolveRound,
  type RoundOutcome,
} from '../domain/resolution';
import { prizeAmount, type GameTimings } from '../domain/timings';
import type { GameRecords } from '../persistence';
import type { EngineMetrics } from '../metrics';

/** Where the votes of a tournament go, and how far the engine has applied them. */
export interface VotesProgress {
  partitionOf(tournamentId: string): Promise<number>;
  endOffset(partition: number): Promise<string>;
  applied(partition: number): Promise<bigint>;
}

export interface RunnerDependencies {
  live: LiveGames;
  events: GameEventsPublisher;
  records: GameRecords;
  ads: AdsCatalog;
  votes: VotesProgress;
  timings: GameTimings;
  lease: { ttlMs: number; renewEveryMs: number };
  /** How long a round waits for its votes to be applied before resolving anyway. */
  votesWaitMaxMs: number;
  /** This replica's name, the lease owner. */
  owner: string;
  /** The engine's time source; it measures in ms since the epoch (`now()` below). */
  clock: Clock;
  logger: Logger;
  metrics: EngineMetrics;
}

/** Thrown when a fenced step finds another replica's token: this replica must stop acting. */
class LeaseLost extends Error {}

type Step = number | 'done';

/** Where a stored step left the game: its announcement belongs there and nowhere else. */
type Landing = { phase: GameState['phase']; round: number };

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
 * state from the live store and makes the step the phase and the clock call for. Every step is
 * a fenced compare-and-set on (phase, round), so a replica taking over resumes exactly where the
 * store says, at the stored deadlines, and a replica that lost the lease cannot write.
 * Events are published after their step is stored, with deterministic ids.
 */
export class GameRunner {
  private token = 0;
  private stopped = false;
  private wake: (() => void) | undefined;
  private offlineCastRound = 0;
  private lastTotalSent = -1;
  private lastTotalAt = 0;
  /** The game's start record, written once round 1's results are out (see `begin`). */
  private startRecord: ((eliminatedInRound1: readonly string[]) => Promise<void>) | undefined;
  /** Record writes in order (the start before round 1's results), each after the one before. */
  private recordsWritten: Promise<void> = Promise.resolve();
  /** Ends the wait of the record write now waiting for its delay (see `flushRecords`). */
  private readonly recordDelays = new Set<() => void>();
  private flushing = false;
  /** This runner asked for the game's start record: every record since is its own. */
  private recordingSinceStart = false;
  /** A record write gave up: the game's end writes the whole game again. */
  private recordsIncomplete = false;
  /** A stored step's announcement that failed: made before anything else once the store is back. */
  private pendingAnnouncement: { at: Landing; announce: () => Promise<void> } | undefined;
  /** When this runner began waiting for a round's votes to be applied (see `votingEnded`). */
  private votesWaitFrom: { round: number; at: number } | undefined;
  /** Steps that failed in a row (the store or the bus unreachable). */
  private failures = 0;
  private firstFailureAt = 0;
  /** The game's state was seen here: a later missing state is a loss, not a game not yet made. */
  private seenGame = false;
  private readonly log: Logger;
  readonly finished: Promise<void>;

  constructor(
    readonly tournamentId: string,
    private readonly deps: RunnerDependencies,
  ) {
    this.log = deps.logger.child({ tournamentId });
    this.finished = this.loop();
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
    if (release && this.token > 0) {
      await this.deps.live
        .releaseLease(this.tournamentId, this.deps.owner, this.token)
        .catch((error: unknown) => this.log.warn({ err: error }, 'lease not released'));
    }
  }

  private async loop(): Promise<void> {
    const { live, lease, owner } = this.deps;
    while (!this.stopped) {
      let waitMs = lease.renewEveryMs;
      try {
        const token = await live.acquireLease(this.tournamentId, owner, lease.ttlMs);
        if (token === 0) {
          this.deps.metrics.fenced.inc({ at: 'lease' });
          this.log.warn({ fence: this.token }, 'another replica holds the game; stepping back');
          return;
        }
        if (token !== this.token && this.token !== 0)
          this.log.warn({ fence: token }, 'lease renewed');
        this.token = token;
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
        const next = await this.holdingLease(async () => {
          await this.announcePending(state);
          return this.step(state);
        });
        this.recovered();
        if (next === 'done') return;
        waitMs = Math.max(0, Math.min(waitMs, next));
      } catch (error) {
        if (error instanceof LeaseLost) {
          this.deps.metrics.fenced.inc({ at: 'step' });
          this.log.warn({ fence: this.token }, 'fenced out: another replica took the game over');
          return;
        }
        // Never given up: the game waits for its store (or bus) for as long as it takes, and
        // resumes from what is stored. Its lease lapses meanwhile, so another replica that can
        // reach the store takes the game over; this one is then fenced out.
        this.failures += 1;
        if (this.failures === 1) this.firstFailureAt = Date.now();
        waitMs = retryDelayMs(this.failures);
        const context = { err: error, attempt: this.failures, retryInMs: waitMs };
        if (this.failures === 1) this.log.error(context, 'game step failed; retrying');
        else this.log.warn(context, 'game step failed again; retrying');
      }
      if (waitMs > 0 && !this.stopped) await this.sleep(waitMs);
    }
  }

  /**
   * Runs a step while renewing the lease every `renewEveryMs`: a step may outlast the lease's
   * TTL (the end writes the whole game's records when this replica took it over; a slow
   * document store), and the other replica must not take the game over and repeat it meanwhile
   * (issue 29). A renewal that finds another replica's lease fails the step with `LeaseLost`
   * once the work returns, as a fenced write would.
   */
  private async holdingLease<T>(work: () => Promise<T>): Promise<T> {
    const { live, lease, owner } = this.deps;
    let lost = false;
    let renewing: Promise<void> = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing.then(async () => {
        if (lost) return;
        try {
          const token = await live.acquireLease(this.tournamentId, owner, lease.ttlMs);
          if (token === 0) lost = true;
          else this.token = token;
        } catch (error) {
          // The store unreachable: the step's own writes fail too; the lease may lapse.
          this.log.warn({ err: error }, 'lease not renewed during a step');
        }
      });
    }, lease.renewEveryMs);
    try {
      const result = await work();
      if (lost) throw new LeaseLost();
      return result;
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  private recovered(): void {
    if (this.failures === 0) return;
    this.log.info(
      { failedAttempts: this.failures, outageMs: Date.now() - this.firstFailureAt },
      'game resumed',
    );
    this.failures = 0;
  }

  /** Makes a stored step's announcement that failed, if the game still stands where it landed. */
  private async announcePending(state: GameState): Promise<void> {
    const pending = this.pendingAnnouncement;
    if (!pending) return;
    if (state.phase === pending.at.phase && state.round === pending.at.round) {
      await pending.announce();
    }
    this.pendingAnnouncement = undefined;
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

  private step(state: GameState): Promise<Step> {
    switch (state.phase) {
      case 'waiting':
        return this.begin(state);
      case 'voting':
        return this.voting(state);
      case 'voting_ended':
        return this.votingEnded(state);
      case 'tallying':
        return this.tally(state);
      case 'results':
        return this.afterResults(state);
      case 'advertisement':
        return this.afterAdvertisement(state);
      case 'finished':
        return this.finish(state);
    }
  }

  /** A fenced step; false when the game already moved on (another step won). */
  private async advance(
    expected: Expectation,
    fields: Record<string, string | number>,
    eliminated?: { round: number; userIds: readonly string[] },
  ): Promise<boolean> {
    const reply = await this.deps.live.advance(
      this.tournamentId,
      this.token,
      expected,
      fields,
      eliminated,
    );
    if (reply === 'FENCED') throw new LeaseLost();
    return reply === 'OK';
  }

  private context(state: GameState, at = this.now()) {
    return { tournamentId: this.tournamentId, gameId: state.gameId, at: new Date(at) };
  }

  private emit(state: GameState, kind: GameEventKind, idSuffix: string, at?: number) {
    return this.deps.events.publish(this.context(state, at), kind, idSuffix);
  }

  /**
   * Facts for the records, in the background and in order: the round loop never waits for
   * MongoDB, and a round's eliminations never reach the store before its participants. Each
   * write starts `recordsDelayMs` after it was asked for, when the games closing at the same
   * moment on this replica have resolved (see `GameTimings`).
   */
  private record(what: string, write: () => Promise<void>) {
    const due = Date.now() + this.deps.timings.recordsDelayMs;
    const attempt = async (left: number): Promise<void> => {
      try {
        await write();
      } catch (error) {
        if (left <= 0) {
          this.log.error({ err: error, what }, 'could not record game facts');
          this.recordsIncomplete = true;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await attempt(left - 1);
      }
    };
    this.recordsWritten = this.recordsWritten.then(async () => {
      const wait = due - Date.now();
      if (wait > 0 && !this.flushing) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.recordDelays.delete(done);
            resolve();
          };
          const timer = setTimeout(done, wait);
          this.recordDelays.add(done);
        });
      }
      await attempt(5);
    });
  }

  /**
   * Writes the records still waiting for their delay at once, and resolves when every write
   * asked for so far is done: a replica that stops cleanly leaves no record behind.
   */
  async flushRecords(): Promise<void> {
    this.flushing = true;
    for (const done of [...this.recordDelays]) done();
    await this.recordsWritten;
  }

  /** Resolves when every record write asked for so far is done (delays included). */
  recordsDone(): Promise<void> {
    return this.recordsWritten;
  }

  // ---- phases ----

  private async begin(state: GameState): Promise<Step> {
    const now = this.now();
    const ad = this.deps.ads.pick('before_game');
    // The draw's seed, fixed before any vote, stored with the step (it survives a take-over and a
    // failover like the rest of the state); only its SHA-256 is published now (issue 28).
    const drawSeed = state.drawSeed || newDrawSeed();
    const moved = await this.advance(
      { phase: 'waiting', round: 0 },
      {
        ...(ad ? adFields(ad, 'before_game', now) : this.roundFields(state, 1, now)),
        drawSeed,
      },
    );
    if (!moved) return 0;
    await this.announce(
      ad ? { phase: 'advertisement', round: 0 } : { phase: 'voting', round: 1 },
      async () => {
        const participants = await this.deps.live.participants(this.tournamentId);
        const offline = participants.filter((p) => p.offlineChoices !== undefined).length;
        await this.emit(
          state,
          {
            case: 'gameStarted',
            value: {
              participantCount: participants.length,
              offlineParticipantCount: offline,
              totalRounds: state.totalRounds,
              roundTimeSeconds: state.roundTimeSeconds,
              drawSeedSha256: drawSeedCommitment(drawSeed),
            },
          },
          '0',
        );
        // Every participant's document (10,000 inserts in a large game) is written once round 1's
        // results are out: at the start they took the CPU the first seconds of votes needed, and
        // at the close of voting the CPU the tally and the results needed — with two games closing
        // together, one's results waited for both games' inserts (docs/benchmarks.md). The game's
        // end rewrites whatever is missing.
        this.startRecord = (eliminatedInRound1) => {
          // Round 1's eliminated go in eliminated: no update of their documents one by one
          // afterwards (on FerretDB each is a locked write that scans the collection).
          const out = new Set(eliminatedInRound1);
          const known = participants.map((participant) =>
            out.has(participant.userId) ? { ...participant, eliminatedInRound: 1 } : participant,
          );
          return this.deps.records.gameStarted(this.gameStartedRecord(state, known, now));
        };
        this.log.info({ gameId: state.gameId, participants: participants.length }, 'game started');
        if (ad) await this.emitAdvertisement(state, ad, 'before_game', 0, now);
        else await this.openRound(state, 1, now);
      },
    );
    return 0;
  }

  /** The game's start record, once round `round`'s results (those eliminated in it) are out. */
  private recordStart(round: number, eliminated: readonly string[]): void {
    const write = this.startRecord;
    this.startRecord = undefined;
    if (!write) return;
    this.recordingSinceStart = true;
    this.record('gameStarted', () => write(round === 1 ? eliminated : []));
  }

  private gameStartedRecord(state: GameState, participants: Participant[], now: number) {
    return {
      gameId: state.gameId,
      tournament: {
        id: this.tournamentId,
        title: state.title,
        ...(state.prize ? { prize: state.prize } : {}),
        startAt: new Date(state.startAt),
      },
      totalRounds: state.totalRounds,
      roundTimeSeconds: state.roundTimeSeconds,
      startedAt: new Date(state.startedAt || now),
      participants: participants.map(participantRecord),
    };
  }

  private roundFields(state: GameState, round: number, now: number) {
    const endsAt = now + state.roundTimeSeconds * 1000;
    return {
      phase: 'voting',
      round,
      roundStartedAt: now,
      votingEndsAt: endsAt,
      phaseEndsAt: endsAt,
      totalVotes: 0,
      votesEndOffset: '',
      advertisement: '',
      adPosition: '',
    };
  }

  /** After the step to voting: offline choices cast, then the round announced. */
  private async openRound(state: GameState, round: number, now: number): Promise<void> {
    const opened = {
      ...state,
      phase: 'voting' as const,
      round,
      roundStartedAt: now,
      votingEndsAt: now + state.roundTimeSeconds * 1000,
    };
    await this.castOfflineChoices(opened);
    const [aliveList, offlineChoices] = await Promise.all([
      this.deps.live.alive(this.tournamentId),
      this.deps.live.offlineChoices(this.tournamentId),
    ]);
    const remaining = aliveList.length;
    const alive = new Set(aliveList);
    const offlineRemaining = Object.keys(offlineChoices).filter((id) => alive.has(id)).length;
    await this.emit(
      opened,
      {
        case: 'roundVotingStarted',
        value: {
          roundNumber: round,
          images: roundImages(round),
          roundTimeSeconds: state.roundTimeSeconds,
          phaseEndsAt: timestampFromDate(new Date(opened.votingEndsAt)),
          remainingCount: remaining,
          offlineRemainingCount: offlineRemaining,
        },
      },
      String(round),
      now,
    );
    this.lastTotalSent = -1;
    this.log.info({ roundNumber: round, remaining }, 'round voting started');
  }

  /** Offline players' pre-selected choices, cast at the round's start (idempotent by vote id). */
  private async castOfflineChoices(state: GameState): Promise<void> {
    const { live, metrics } = this.deps;
    const [choices, aliveList] = await Promise.all([
      live.offlineChoices(this.tournamentId),
      live.alive(this.tournamentId),
    ]);
    const alive = new Set(aliveList);
    const voters = Object.entries(choices).filter(([userId]) => alive.has(userId));
    const participants =
      voters.length > 0 ? await live.participants(this.tournamentId) : ([] as Participant[]);
    const names = new Map(participants.map((p) => [p.userId, p.username]));
    for (let i = 0; i < voters.length; i += 100) {
      const replies = await Promise.all(
        voters.slice(i, i + 100).map(([userId, picks]) =>
          live.applyVote({
            tournamentId: this.tournamentId,
            gameId: state.gameId,
            voteId: `offline:${state.gameId}:${state.round}:${userId}`,
            userId,
            username: names.get(userId) ?? '',
            roundNumber: state.round,
            imageId: offlinePickImageId(state.round, picks[state.round - 1]),
            castAt: state.roundStartedAt,
            offline: true,
          }),
        ),
      );
      metrics.votesCounted.inc(replies.filter((reply) => reply === 'COUNTED').length);
    }
    this.offlineCastRound = state.round;
  }

  private async voting(state: GameState): Promise<Step> {
    const now = this.now();
    if (this.offlineCastRound !== state.round) await this.castOfflineChoices(state);
    if (now >= state.votingEndsAt) {
      const moved = await this.advance(
        { phase: 'voting', round: state.round },
        { phase: 'voting_ended', phaseEndsAt: state.votingEndsAt + this.deps.timings.graceMs },
      );
      if (moved) {
        await this.announce({ phase: 'voting_ended', round: state.round }, () =>
          this.emit(
            state,
            {
              case: 'votingEnded',
              value: { roundNumber: state.round, totalVotes: state.totalVotes },
            },
            String(state.round),
          ),
        );
      }
      return 0;
    }
    const every = this.deps.timings.voteTotalEveryMs;
    if (state.totalVotes !== this.lastTotalSent && now - this.lastTotalAt >= every) {
      this.lastTotalSent = state.totalVotes;
      this.lastTotalAt = now;
      await this.emit(
        state,
        { case: 'voteTotal', value: { roundNumber: state.round, totalVotes: state.totalVotes } },
        `${state.round}:${state.totalVotes}`,
      );
    }
    return Math.min(state.votingEndsAt - now, every);
  }

  /**
   * After the grace: mark the round's votes closing, capture the end of the tournament's
   * `game.votes` partition, then wait until the engine has applied everything before it. The
   * gateway acknowledges a vote only if its produce completed before the closing mark (or the
   * engine counted it already: `settleVote`), so an acknowledged vote is in the tally.
   *
   * Usually nothing lags by then (votes stop with the grace): the round then goes from the
   * capture to its tally in this one step. Each further step takes the lease and reads the state
   * again, and a close is the moment every player waits for (docs/benchmarks.md, the sixth pass).
   */
  private async votingEnded(state: GameState): Promise<Step> {
    const now = this.now();
    if (now < state.phaseEndsAt) return state.phaseEndsAt - now;
    const { votes } = this.deps;
    const expected = { phase: 'voting_ended', round: state.round } as const;
    if (state.votesEndOffset === '' || state.votesEndOffset === VOTES_CLOSING) {
      // Closing first, then the capture: a vote the gateway settles after this is withdrawn
      // unless already counted, so none it acknowledges can land after the capture (ADR 9).
      if (
        state.votesEndOffset === '' &&
        !(await this.advance(expected, { votesEndOffset: VOTES_CLOSING }))
      ) {
        return 0;
      }
      const partition = await votes.partitionOf(this.tournamentId);
      const end = await votes.endOffset(partition);
      const votesEndOffset = `${partition}:${end}`;
      if ((await votes.applied(partition)) < BigInt(end)) {
        await this.advance(expected, { votesEndOffset });
        return 0;
      }
      const moved = await this.advance(expected, { votesEndOffset, phase: 'tallying' });
      return moved ? this.tally({ ...state, votesEndOffset, phase: 'tallying' }) : 0;
    }
    const [partition = '0', end = '0'] = state.votesEndOffset.split(':');
    const applied = await votes.applied(Number(partition));
    // The wait counts from when this runner found the votes lagging, not from the grace's end:
    // after an outage of the store (the capture made late, the votes consumer still backing off)
    // the budget would otherwise be spent before the wait began, and acknowledged votes lost.
    if (this.votesWaitFrom?.round !== state.round) {
      this.votesWaitFrom = { round: state.round, at: now };
    }
    const waited = now - this.votesWaitFrom.at;
    if (applied < BigInt(end) && waited < this.deps.votesWaitMaxMs) return 25;
    if (applied < BigInt(end)) {
      this.log.error(
        { roundNumber: state.round, partition, end, applied: String(applied) },
        'votes not applied in time; resolving with what is counted',
      );
    }
    const moved = await this.advance(expected, { phase: 'tallying' });
    return moved ? this.tally({ ...state, phase: 'tallying' }) : 0;
  }

  private async tally(state: GameState): Promise<Step> {
    const { live } = this.deps;
    const [alive, ballots, marks] = await Promise.all([
      live.alive(this.tournamentId),
      live.ballots(this.tournamentId, state.round),
      live.disqualifications(this.tournamentId),
    ]);
    // Disqualified participants go out at the end of the round their mark names (never later:
    // a mark names this round or the next, see `disqualifyParticipant`).
    const excluded = new Set(
      [...marks].filter(([, mark]) => mark.round <= state.round).map(([userId]) => userId),
    );
    const disqualifiedNow = [...marks]
      .filter(([, mark]) => mark.round === state.round)
      .map(([userId, mark]) => ({ userId, reason: mark.reason }))
      .sort((a, b) => a.userId.localeCompare(b.userId));
    const images = roundImages(state.round);
    const outcome = resolveRound({
      roundNumber: state.round,
      totalRounds: state.totalRounds,
      imageIds: images.map((image) => image.id),
      alive,
      ballots: new Map([...ballots].map(([userId, ballot]) => [userId, ballot.imageId])),
      // A game begun before the seed existed draws with its id, as it did then.
      drawSeed: state.drawSeed || state.gameId,
      excluded,
    });
    const now = this.now();
    const winner = outcome.end && 'winnerUserId' in outcome.end ? outcome.end.winnerUserId : '';
    const winnerName = winner
      ? ((await live.player(this.tournamentId, winner))?.username ?? '')
      : '';
    const moved = await this.advance(
      { phase: 'tallying', round: state.round },
      {
        phase: 'results',
        phaseEndsAt: now + this.deps.timings.resultsMs,
        results: JSON.stringify(outcome.results),
        // Kept for the records: a replica finishing the game writes them again (see `finish`).
        [roundFactsField(state.round)]: JSON.stringify({
          startedAt: state.roundStartedAt,
          endedAt: now,
          results: outcome.results,
        }),
        roundEliminated: outcome.eliminated.length,
        ...(outcome.end
          ? {
              decidedBy: outcome.end.decidedBy,
              winner: winner
                ? JSON.stringify({ userId: winner, username: winnerName, prize: state.prize })
                : '',
              draw: outcome.end.decidedBy === 'draw' ? JSON.stringify(outcome.end.draw) : '',
            }
          : {}),
      },
      { round: state.round, userIds: outcome.eliminated },
    );
    if (!moved) return 0;
    await this.announce({ phase: 'results', round: state.round }, async () => {
      for (const { userId, reason } of disqualifiedNow) {
        await this.emit(
          state,
          {
            case: 'participantDisqualified',
            value: {
              userId,
              username: (await live.player(this.tournamentId, userId))?.username ?? '',
              reason,
              roundNumber: state.round,
              afterGame: false,
            },
          },
          `${state.round}:${userId}`,
          now,
        );
      }
      await this.emit(
        state,
        {
          case: 'roundResults',
          value: {
            roundNumber: state.round,
            results: outcome.results,
            totalVotes: outcome.totalVotes,
            winningImageIds: outcome.winningImageIds,
            eliminatedCount: outcome.eliminated.length,
            remainingCount: outcome.advanced.length,
            durationSeconds: Math.round(this.deps.timings.resultsMs / 1000),
            phaseEndsAt: timestampFromDate(new Date(now + this.deps.timings.resultsMs)),
            advancedUserIds: outcome.advanced,
          },
        },
        String(state.round),
        now,
      );
      this.deps.metrics.roundDuration.observe((now - state.roundStartedAt) / 1000);
      this.log.info(
        {
          roundNumber: state.round,
          totalVotes: outcome.totalVotes,
          advanced: outcome.advanced.length,
          eliminated: outcome.eliminated.length,
        },
        'round resolved',
      );
      this.recordStart(state.round, outcome.eliminated);
      this.recordRound(state, outcome, ballots, now);
      if (disqualifiedNow.length > 0) {
        this.record('participantsDisqualified', () =>
          this.deps.records.participantsDisqualified(state.gameId, disqualifiedNow),
        );
      }
    });
    return 0;
  }

  private recordRound(
    state: GameState,
    outcome: RoundOutcome,
    ballots: Awaited<ReturnType<LiveGames['ballots']>>,
    endedAt: number,
  ) {
    this.record('roundResolved', () =>
      this.deps.records.roundResolved(
        roundRecord(state, state.round, ballots, outcome.eliminated, {
          startedAt: state.roundStartedAt,
          endedAt,
          results: outcome.results,
        }),
      ),
    );
  }

  /**
   * The whole game's records again, from the live store, in order: its start, every resolved
   * round, its end. Each write is idempotent, so this only adds what is missing — what a replica
   * that died (or froze) had not written yet when another took the game over.
   */
  private async recordWholeGame(
    state: GameState,
    participants: Participant[],
    end: Parameters<GameRecords['gameEnded']>[0],
  ): Promise<void> {
    const { live, records } = this.deps;
    await records.gameStarted(this.gameStartedRecord(state, participants, this.now()));
    for (let round = 1; round <= state.round; round += 1) {
      const facts = await live.roundFacts(this.tournamentId, round);
      if (!facts) continue;
      const eliminated = participants
        .filter((participant) => participant.eliminatedInRound === round)
        .map((participant) => participant.userId);
      const ballots = await live.ballots(this.tournamentId, round);
      await records.roundResolved(roundRecord(state, round, ballots, eliminated, facts));
    }
    await records.gameEnded(end);
  }

  private async afterResults(state: GameState): Promise<Step> {
    const now = this.now();
    if (now < state.phaseEndsAt) return state.phaseEndsAt - now;
    const ended = state.decidedBy !== '' || state.round >= state.totalRounds;
    const position: AdPosition = ended ? 'after_game' : 'between_rounds';
    const ad = this.deps.ads.pick(position);
    const next = ad
      ? adFields(ad, position, now)
      : ended
        ? { phase: 'finished', phaseEndsAt: 0 }
        : this.roundFields(state, state.round + 1, now);
    const moved = await this.advance({ phase: 'results', round: state.round }, next);
    if (!moved) return 0;
    await this.announce(
      ad
        ? { phase: 'advertisement', round: state.round }
        : ended
          ? { phase: 'finished', round: state.round }
          : { phase: 'voting', round: state.round + 1 },
      async () => {
        const remaining = (await this.deps.live.alive(this.tournamentId)).length;
        await this.emit(
          state,
          {
            case: 'roundCompleted',
            value: {
              roundNumber: state.round,
              eliminatedCount: state.roundEliminated,
              remainingCount: remaining,
            },
          },
          String(state.round),
          now,
        );
        if (ad) await this.emitAdvertisement(state, ad, position, state.round, now);
        else if (!ended) await this.openRound(state, state.round + 1, now);
      },
    );
    return 0;
  }

  private async emitAdvertisement(
    state: GameState,
    ad: Advertisement,
    position: AdPosition,
    afterRound: number,
    now: number,
  ) {
    await this.emit(
      state,
      {
        case: 'advertisementStarted',
        value: {
          position,
          advertisement: ad,
          durationSeconds: ad.duration,
          phaseEndsAt: timestampFromDate(new Date(now + ad.duration * 1000)),
          afterRoundNumber: afterRound,
        },
      },
      `${position}:${afterRound}`,
      now,
    );
  }

  private async afterAdvertisement(state: GameState): Promise<Step> {
    const now = this.now();
    if (now < state.phaseEndsAt) return state.phaseEndsAt - now;
    if (state.adPosition === 'after_game') {
      await this.advance(
        { phase: 'advertisement', round: state.round },
        { phase: 'finished', phaseEndsAt: 0 },
      );
      return 0;
    }
    const round = state.round + 1;
    const moved = await this.advance(
      { phase: 'advertisement', round: state.round },
      this.roundFields(state, round, now),
    );
    if (moved) {
      await this.announce({ phase: 'voting', round }, () => this.openRound(state, round, now));
    }
    return 0;
  }

  /**
   * The game's end in its records, before `game_ended` is published: whoever hears it — a
   * player pressing VIEW RESULTS, the tournament service marking the tournament finished —
   * reads the winner and every round at once (read-your-writes). The writes still waiting for
   * their delay go now (that delay spares the closes of other games; the end is no close), and
   * a failed write fails the step, which is made again. A runner that did not record the game
   * from its start (it took the game over), or whose write gave up, writes the whole game again.
   */
  private async recordEnd(
    state: GameState,
    participants: Participant[],
    end: Parameters<GameRecords['gameEnded']>[0],
  ): Promise<void> {
    await this.flushRecords();
    if (this.recordingSinceStart && !this.recordsIncomplete) await this.deps.records.gameEnded(end);
    else await this.recordWholeGame(state, participants, end);
    // Every disqualification again (idempotent; usually each is recorded at its round already).
    const marks = participants.flatMap((participant) =>
      participant.disqualificationReason === undefined
        ? []
        : [{ userId: participant.userId, reason: participant.disqualificationReason }],
    );
    if (marks.length > 0) await this.deps.records.participantsDisqualified(state.gameId, marks);
  }

  /** The end: the records, the announcement, one outcome per participant; then the game is done. */
  private async finish(state: GameState): Promise<Step> {
    const participants = await this.deps.live.participants(this.tournamentId);
    const endedAt = state.phaseEndsAt || this.now();
    const winner = state.winner;
    const draw = state.draw;
    await this.recordEnd(state, participants, {
      gameId: state.gameId,
      endedAt: new Date(endedAt),
      ...(winner
        ? {
            winner: {
              userId: winner.userId,
              username: winner.username,
              ...(state.prize ? { prize: state.prize } : {}),
            },
          }
        : {}),
      ...(draw ? { draw } : {}),
      ...(state.drawSeed ? { drawSeed: state.drawSeed } : {}),
    });
    // Still this replica's game after the records (a frozen replica whose lease lapsed stops
    // here: the one that took over announces the end).
    await this.advance({ phase: 'finished', round: state.round }, {});
    await this.emit(
      state,
      {
        case: 'gameEnded',
        value: {
          ...(winner
            ? {
                winnerUserId: winner.userId,
                winnerUsername: winner.username,
                winnerDisplayName: winner.username,
                ...(state.prize ? { prize: state.prize } : {}),
              }
            : {}),
          roundsPlayed: state.round,
          decidedBy: state.decidedBy || 'no_winner',
          // The seed revealed (its SHA-256 was in GameStarted) and, for a draw, its candidates:
          // anyone recomputes the winner from the events alone (tools/verify-draw.ts).
          drawSeed: state.drawSeed || state.gameId,
          ...(state.decidedBy === 'draw' && draw
            ? { drawCandidateUserIds: [...draw.candidateUserIds].sort() }
            : {}),
        },
      },
      '0',
    );
    const prize = prizeAmount(state.prize);
    await this.deps.events.outcomes(
      participants.map((participant) => {
        const out = participant.eliminatedInRound;
        const roundsPlayed = out > 0 ? out : state.round;
        const won = winner?.userId === participant.userId;
        return {
          userId: participant.userId,
          gameId: state.gameId,
          tournamentId: this.tournamentId,
          won,
          prizeAmount: BigInt(won ? prize : 0),
          roundsPlayed,
          roundsWon: out > 0 ? out - 1 : state.round,
          tournamentSize: participants.length,
          eliminatedInRound: out,
          isOfflinePlayer: participant.offlineChoices !== undefined,
          endedAt: timestampFromDate(new Date(endedAt)),
        };
      }),
    );
    await this.deps.live.markInactive(this.tournamentId);
    this.log.info(
      { gameId: state.gameId, winner: winner?.userId, decidedBy: state.decidedBy },
      'game ended',
    );
    return 'done';
  }
}

function adFields(ad: Advertisement, position: AdPosition, now: number) {
  const stored: StoredAdvertisement = {
    id: ad.id,
    title: ad.title,
    type: ad.type,
    content: ad.content,
    displayPosition: ad.displayPosition,
    duration: ad.duration,
  };
  return {
    phase: 'advertisement',
    phaseEndsAt: now + ad.duration * 1000,
    advertisement: JSON.stringify(stored),
    adPosition: position,
  };
}

function roundRecord(
  state: GameState,
  round: number,
  ballots: Awaited<ReturnType<LiveGames['ballots']>>,
  eliminated: readonly string[],
  facts: RoundFacts,
) {
  const winning = new Set(facts.results.filter((r) => r.isWinner).map((r) => r.imageId));
  return {
    gameId: state.gameId,
    roundNumber: round,
    images: roundImages(round),
    timeLimit: state.roundTimeSeconds,
    startedAt: new Date(facts.startedAt),
    endedAt: new Date(facts.endedAt),
    votes: [...ballots].map(([userId, ballot]) => ({
      userId,
      username: ballot.username,
      imageId: ballot.imageId,
      votedAt: new Date(ballot.castAt),
      isOfflinePlayer: ballot.offline,
      isWinningVote: winning.has(ballot.imageId),
    })),
    eliminated: eliminated.map((userId) => ({ userId })),
    results: facts.results,
  };
}

export function participantRecord(participant: Participant) {
  return {
    userId: participant.userId,
    username: participant.username,
    isOfflinePlayer: participant.offlineChoices !== undefined,
    joinedAt: new Date(participant.joinedAt),
    ...(participant.disqualificationReason === undefined
      ? {}
      : { disqualificationReason: participant.disqualificationReason }),
    // Known when the whole game is written again at its end: the participant's document is
    // inserted eliminated, and the rounds' elimination updates find nothing left to change.
    ...(participant.eliminatedInRound > 0
      ? { eliminatedInRound: participant.eliminatedInRound }
      : {}),
  };
}
