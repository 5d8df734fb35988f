import type { Clock, Logger } from '@underdog/kit';
import { VOTES_CLOSING, type GameState } from '@underdog/live-game';
import { timestampFromDate, type Advertisement } from '@underdog/proto';
import { offlinePickImageId, roundImages } from '@underdog/rules';
import type { AdPosition, AdsCatalog } from '../adapters/ads-catalog';
import type { GameEventKind, GameEventsPublisher } from '../adapters/game-events';
import {
  roundFactsField,
  type Expectation,
  type LiveGames,
  type Participant,
} from '../adapters/live-games';
import {
  drawSeedCommitment,
  newDrawSeed,
  resolveRound,
  type RoundOutcome,
} from '../domain/resolution';
import {
  captureSettled,
  freshMemory,
  nextStep,
  votesSettled,
  VOTES_RECHECK_MS,
  type LoopAction,
  type LoopMemory,
} from '../domain/round-loop';
import { prizeAmount, type GameTimings } from '../domain/timings';
import type { GameRecords } from '../persistence';
import type { EngineMetrics } from '../metrics';
import { LeaseKeeper, LeaseLost } from './lease-keeper';
import { RecordsWriter } from './records-writer';
import { adFields, gameStartedRecord, roundRecord } from './game-facts';

export { participantRecord } from './game-facts';

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
  readonly finished: Promise<void>;

  constructor(
    readonly tournamentId: string,
    private readonly deps: RunnerDependencies,
  ) {
    this.log = deps.logger.child({ tournamentId });
    this.records = new RecordsWriter(deps.timings.recordsDelayMs, this.log);
    this.lease = new LeaseKeeper(deps.live, tournamentId, deps.owner, deps.lease, this.log);
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
        const next = await this.lease.holding(async () => {
          await this.announcePending(state);
          return this.step(state);
        });
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
        if (this.failures === 1) this.firstFailureAt = Date.now();
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

  /** One step: `nextStep` decides from the state and the time, this performs its actions. */
  private async step(state: GameState): Promise<Step> {
    const now = this.now();
    const { timings, votesWaitMaxMs } = this.deps;
    const decided = nextStep({ game: state, memory: this.memory }, now, {
      graceMs: timings.graceMs,
      voteTotalEveryMs: timings.voteTotalEveryMs,
      votesWaitMaxMs,
    });
    // The decided memory is kept where the loop kept it before its read or its publication (a
    // failed read starts no votes' wait; the cast round is set by the cast itself).
    const keep = () => {
      this.memory = { ...decided.memory, offlineCastRound: this.memory.offlineCastRound };
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
    switch (action.kind) {
      case 'begin':
        return this.begin(state, now);
      case 'castOffline':
        await this.castOfflineChoices(state);
        return undefined;
      case 'closeVoting':
        return this.closeVoting(state, action.phaseEndsAt);
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
        return this.captureVotes(state, action.markClosing);
      case 'awaitVotes':
        return this.awaitVotes(state, action, keep);
      case 'tally':
        return this.tally(state);
      case 'endResults':
        return this.afterResults(state, action.ended, now);
      case 'endAdvertisement':
        return this.afterAdvertisement(state, action.finishing, now);
      case 'finish':
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
      this.lease.token,
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

  private record(what: string, write: () => Promise<void>) {
    this.records.record(what, write);
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

  // ---- phases ----

  private async begin(state: GameState, now: number): Promise<Step> {
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
        this.records.holdStart((eliminatedInRound1) => {
          // Round 1's eliminated go in eliminated: no update of their documents one by one
          // afterwards (on FerretDB each is a locked write that scans the collection).
          const out = new Set(eliminatedInRound1);
          const known = participants.map((participant) =>
            out.has(participant.userId) ? { ...participant, eliminatedInRound: 1 } : participant,
          );
          return this.deps.records.gameStarted(
            gameStartedRecord(this.tournamentId, state, known, now),
          );
        });
        this.log.info({ gameId: state.gameId, participants: participants.length }, 'game started');
        if (ad) await this.emitAdvertisement(state, ad, 'before_game', 0, now);
        else await this.openRound(state, 1, now);
      },
    );
    return 0;
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
    this.memory = { ...this.memory, lastTotalSent: -1 };
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
    this.memory = { ...this.memory, offlineCastRound: state.round };
  }

  /** voting → voting_ended, announced. */
  private async closeVoting(state: GameState, phaseEndsAt: number): Promise<Step> {
    const moved = await this.advance(
      { phase: 'voting', round: state.round },
      { phase: 'voting_ended', phaseEndsAt },
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
  private async captureVotes(state: GameState, markClosing: boolean): Promise<Step> {
    const { votes } = this.deps;
    const expected = { phase: 'voting_ended', round: state.round } as const;
    // Closing first, then the capture: a vote the gateway settles after this is withdrawn
    // unless already counted, so none it acknowledges can land after the capture (ADR 9).
    if (markClosing && !(await this.advance(expected, { votesEndOffset: VOTES_CLOSING }))) {
      return 0;
    }
    const partition = await votes.partitionOf(this.tournamentId);
    const end = await votes.endOffset(partition);
    const votesEndOffset = `${partition}:${end}`;
    if (!captureSettled(await votes.applied(partition), BigInt(end))) {
      await this.advance(expected, { votesEndOffset });
      return 0;
    }
    const moved = await this.advance(expected, { votesEndOffset, phase: 'tallying' });
    return moved ? this.tally({ ...state, votesEndOffset, phase: 'tallying' }) : 0;
  }

  private async awaitVotes(
    state: GameState,
    action: Extract<LoopAction, { kind: 'awaitVotes' }>,
    keep: () => void,
  ): Promise<Step> {
    const applied = await this.deps.votes.applied(action.partition);
    keep();
    const settled = votesSettled(applied, action, this.deps.votesWaitMaxMs);
    if (settled === 'wait') return VOTES_RECHECK_MS;
    if (settled === 'resolveLate') {
      this.log.error(
        {
          roundNumber: state.round,
          partition: String(action.partition),
          end: String(action.end),
          applied: String(applied),
        },
        'votes not applied in time; resolving with what is counted',
      );
    }
    const moved = await this.advance(
      { phase: 'voting_ended', round: state.round },
      { phase: 'tallying' },
    );
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
      this.records.recordStart(state.round, outcome.eliminated);
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
    await records.gameStarted(
      gameStartedRecord(this.tournamentId, state, participants, this.now()),
    );
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

  private async afterResults(state: GameState, ended: boolean, now: number): Promise<Step> {
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

  private async afterAdvertisement(
    state: GameState,
    finishing: boolean,
    now: number,
  ): Promise<Step> {
    if (finishing) {
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
    if (this.records.complete) await this.deps.records.gameEnded(end);
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
