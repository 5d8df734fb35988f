import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EventBus } from '@underdog/bus';
import {
  AppError,
  commonErrors,
  isAppError,
  isStoreUnavailable,
  systemClock,
  type Clock,
  type Logger,
  type Registry,
  withTimeout,
} from '@underdog/kit';
import {
  admitVote,
  gameKeys,
  settleVote,
  slotKeys,
  slotOf,
  VOTE_SLOTS_FIELD,
  voteSlotsFrom,
  votesKey,
} from '@underdog/live-game';
import { TOTAL_ROUNDS, isImageOfRound, isRoundNumber } from '@underdog/rules';
import { topics } from '@underdog/platform';
import {
  GameVoteEventSchema,
  PlayerViewSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type LiveGame,
  type PlayerView,
} from '@underdog/proto';
import type { LiveStore, ScriptReply, StoreScript } from '@underdog/store';
import { Counter, Histogram, type Metric } from 'prom-client';
import { actorOf, delegate } from './actors';
import type { GameActionLimits } from './game-action-limits';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';
import { withStoreTimeout } from './store-unavailable';
import {
  VoteBacklog,
  backlogMetrics,
  type BacklogPlace,
  type VoteBacklogSettings,
} from './vote-backlog';

/** The keys of one vote: the game's, and the round keys of the player's vote slot. */
type VoteKeys = ReturnType<typeof gameKeys>;

/** A vote as a client submits it; the same answer acknowledges it. */
export interface VoteInput {
  tournamentId: string;
  roundNumber: number;
  imageId: string;
}

type Refusal =
  | 'NO_LIVE_GAME'
  | 'NOT_PARTICIPANT'
  | 'ELIMINATED'
  | 'WRONG_ROUND'
  | 'VOTING_CLOSED'
  | 'ALREADY_VOTED'
  | 'DEVICE_IN_USE';

/** Every refusal of a vote: its kind, stable reason and the message players read. */
const refusals: Record<Refusal, () => AppError> = {
  NO_LIVE_GAME: () =>
    new AppError('CONFLICT', 'There is no live game in this tournament', {
      reason: 'NO_LIVE_GAME',
    }),
  NOT_PARTICIPANT: () =>
    new AppError('FORBIDDEN', 'You are not a participant in this tournament', {
      reason: 'NOT_PARTICIPANT',
    }),
  ELIMINATED: () =>
    new AppError('FORBIDDEN', 'You have been eliminated: you can watch the rest of the game', {
      reason: 'ELIMINATED',
    }),
  WRONG_ROUND: () =>
    new AppError('CONFLICT', 'That round is not the current round', { reason: 'WRONG_ROUND' }),
  VOTING_CLOSED: () =>
    new AppError('CONFLICT', 'Voting for this round has closed', { reason: 'VOTING_CLOSED' }),
  ALREADY_VOTED: () =>
    new AppError('CONFLICT', 'You have already voted in this round', {
      reason: 'ALREADY_VOTED',
    }),
  DEVICE_IN_USE: () =>
    new AppError('CONFLICT', 'This device already plays in this tournament with another account', {
      reason: 'DEVICE_IN_USE',
    }),
};

export const gameErrors = {
  invalidImage: (round: number) =>
    new AppError('BAD_REQUEST', `That image is not one of round ${round}'s images`, {
      reason: 'INVALID_IMAGE',
    }),
  invalidRound: () =>
    new AppError('BAD_REQUEST', `The round number must be 1 to ${TOTAL_ROUNDS}`, {
      reason: 'WRONG_ROUND',
    }),
  /**
   * Retryable: the vote was not produced in time (settling made sure it never counts), the live
   * store was unavailable (a failover), or a vote of the player is still being settled; the
   * retry is answered with that vote's fate (docs/adr/0009).
   */
  notRecorded: (cause?: unknown) =>
    new AppError('UNAVAILABLE', 'Your vote could not be recorded; please try again', {
      reason: 'VOTE_NOT_RECORDED',
      ...(cause === undefined ? {} : { cause }),
    }),
  /**
   * Retryable: the tournament's votes partition holds more unapplied votes than the engine
   * applies within the grace (back-pressure, issue 35); nothing was admitted or produced.
   */
  backPressure: () =>
    new AppError(
      'UNAVAILABLE',
      'Votes are arriving faster than they are counted; please try again',
      {
        reason: 'VOTE_NOT_RECORDED',
      },
    ),
};

function metric<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

function voteMetrics(registry: Registry) {
  return {
    accepted: metric(
      registry,
      'underdog_votes_accepted_total',
      () =>
        new Counter({
          name: 'underdog_votes_accepted_total',
          help: 'Votes admitted, produced to game.votes and acknowledged',
          registers: [registry],
        }),
    ),
    refused: metric(
      registry,
      'underdog_votes_refused_total',
      () =>
        new Counter({
          name: 'underdog_votes_refused_total',
          help: 'Votes refused, by reason',
          labelNames: ['reason'],
          registers: [registry],
        }),
    ),
    ack: metric(
      registry,
      'underdog_vote_ack_seconds',
      () =>
        new Histogram({
          name: 'underdog_vote_ack_seconds',
          help: 'From a vote request to its answer (acknowledgement or refusal)',
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
          registers: [registry],
        }),
    ),
    stage: metric(
      registry,
      'underdog_vote_stage_seconds',
      () =>
        new Histogram({
          name: 'underdog_vote_stage_seconds',
          help: 'One step of an admitted vote: the session actor, the admission, the produce',
          labelNames: ['stage'],
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
          registers: [registry],
        }),
    ),
  };
}

export interface GamesDependencies {
  clients: Pick<GatewayClients, 'game'>;
  /** The live store the engine keeps games in (the admission reads and reserves there). */
  store: LiveStore;
  /** Where votes go (`game.votes`). */
  bus: EventBus;
  registry: Registry;
  logger: Logger;
  /** The server clock; default: the system clock. */
  clock?: Clock;
  /** The flood guard on votes and joins (`GameActionLimits`); absent: none. */
  limits?: GameActionLimits;
  /**
   * How long a vote's produce may take before the vote is answered VOTE_NOT_RECORDED (retryable;
   * default `DEFAULT_VOTE_PRODUCE_TIMEOUT_MS`): a broker or leader failover is not waited out.
   */
  produceTimeoutMs?: number;
  /**
   * How long a resend (a vote from a player whose vote of the round is admitted but not settled:
   * its gateway died) waits for that vote's fate before withdrawing it (default
   * `DEFAULT_RESEND_WAIT_MS`). While voting is open it waits only until the original is older
   * than `produceTimeoutMs` + 1 s, the longest its own gateway takes to settle it.
   */
  resendWaitMs?: number;
  /** How often a waiting resend looks at its original again (default 100 ms). */
  resendPollMs?: number;
  /**
   * How long the settlement of a produced vote is retried while the live store is unavailable
   * (a Sentinel failover) before the vote is answered VOTE_NOT_RECORDED (default
   * `DEFAULT_SETTLE_RETRY_MS`).
   */
  settleRetryMs?: number;
  /**
   * How long one live store step of a vote may go unanswered before it counts as the store being
   * unavailable (default `DEFAULT_VOTE_STORE_TIMEOUT_MS`): a connection lost with the command
   * sent holds it until the reconnect.
   */
  storeTimeoutMs?: number;
  /**
   * How many replicas of the live store must confirm a vote's withdrawal (Redis `WAIT`) before
   * it is answered with the final VOTING_CLOSED (default 0: no wait). Fewer within
   * `withdrawalWaitMs` (a primary that may die with the withdrawal unreplicated, and the
   * promoted replica count the vote) is answered the retryable VOTE_NOT_RECORDED instead: the
   * resend is answered with the vote's true fate (docs/adr/0009).
   */
  withdrawalReplicas?: number;
  /** How long a withdrawal waits for `withdrawalReplicas` (default `DEFAULT_WITHDRAWAL_WAIT_MS`). */
  withdrawalWaitMs?: number;
  /**
   * Back-pressure (issue 35): a vote is refused with the retryable VOTE_NOT_RECORDED before it
   * is admitted or produced while its `game.votes` partition holds `maxMessages` votes the engine
   * has not applied (`VoteBacklog`). Unset: no back-pressure.
   */
  backlog?: VoteBacklogSettings;
}

/** The default of `GamesDependencies.produceTimeoutMs`. */
export const DEFAULT_VOTE_PRODUCE_TIMEOUT_MS = 2_500;
/** The default of `GamesDependencies.resendWaitMs`. */
export const DEFAULT_RESEND_WAIT_MS = 5_000;
/** The default of `GamesDependencies.settleRetryMs`: longer than a Sentinel failover's ~2–6 s. */
export const DEFAULT_SETTLE_RETRY_MS = 8_000;
/** The default of `GamesDependencies.storeTimeoutMs`. */
export const DEFAULT_VOTE_STORE_TIMEOUT_MS = 1_500;
/** The default of `GamesDependencies.withdrawalWaitMs`. */
export const DEFAULT_WITHDRAWAL_WAIT_MS = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a vote's admission says (`admitVote`'s reply, parsed). */
type Admission =
  | { kind: 'admitted'; votingEndsAt: number; gameId: string }
  | { kind: 'known' }
  | {
      kind: 'pending';
      voteId: string;
      castAt: number;
      gameId: string;
      where: 'open' | 'closing' | 'resolved';
    }
  | { kind: 'refused'; reply: string };

function parseAdmission(reply: string): Admission {
  if (reply.startsWith('OK:')) {
    const [, votingEndsAt = '0', ...gameId] = reply.split(':');
    return { kind: 'admitted', votingEndsAt: Number(votingEndsAt), gameId: gameId.join(':') };
  }
  if (reply === 'COUNTED' || reply === 'ACKNOWLEDGED') return { kind: 'known' };
  if (reply.startsWith('PENDING:')) {
    const parts = reply.split(':');
    const where = parts.at(-1) as 'open' | 'closing' | 'resolved';
    return {
      kind: 'pending',
      voteId: parts[1] ?? '',
      castAt: Number(parts[2]),
      gameId: parts.slice(3, -1).join(':'),
      where,
    };
  }
  return { kind: 'refused', reply };
}

/**
 * The live game behind every edge: GraphQL, the `/ws` game actions and the demo bots all call
 * these. Joining and the snapshot are the engine's (GameService); a vote is admitted here with
 * one atomic step on the live store, produced to `game.votes` with acks from all in-sync
 * replicas, settled with a second step, and only then acknowledged.
 */
export class Games {
  private readonly clock: Clock;
  private readonly metrics: ReturnType<typeof voteMetrics>;

  private readonly produceTimeoutMs: number;
  /** Each game's vote slots, once it exists (see `voteSlots`). */
  private readonly slotsOf = new Map<string, number>();
  private readonly resendWaitMs: number;
  private readonly resendPollMs: number;
  private readonly settleRetryMs: number;
  private readonly storeTimeoutMs: number;
  private readonly withdrawalReplicas: number;
  private readonly withdrawalWaitMs: number;
  private readonly backlog: VoteBacklog | undefined;

  constructor(private readonly deps: GamesDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.produceTimeoutMs = deps.produceTimeoutMs ?? DEFAULT_VOTE_PRODUCE_TIMEOUT_MS;
    this.resendWaitMs = deps.resendWaitMs ?? DEFAULT_RESEND_WAIT_MS;
    this.resendPollMs = deps.resendPollMs ?? 100;
    this.settleRetryMs = deps.settleRetryMs ?? DEFAULT_SETTLE_RETRY_MS;
    this.storeTimeoutMs = deps.storeTimeoutMs ?? DEFAULT_VOTE_STORE_TIMEOUT_MS;
    this.withdrawalReplicas = deps.withdrawalReplicas ?? 0;
    this.withdrawalWaitMs = deps.withdrawalWaitMs ?? DEFAULT_WITHDRAWAL_WAIT_MS;
    this.metrics = voteMetrics(deps.registry);
    this.backlog = deps.backlog && new VoteBacklog(deps.backlog, deps);
    if (!this.backlog) backlogMetrics(deps.registry);
  }

  /** The server time in ms since the epoch, the unit of the live store's deadlines. */
  private now(): number {
    return this.clock.now().getTime();
  }

  /** Verified users, while the tournament is upcoming or before round 1's voting ends. */
  async join(origin: RequestOrigin, tournamentId: string): Promise<PlayerView> {
    await this.deps.limits?.take('join', origin);
    const { player } = await delegate(
      this.deps.clients.game.joinTournament({ actor: await actorOf(origin), tournamentId }),
    );
    return player ?? create(PlayerViewSchema);
  }

  /** The game's snapshot, with the caller's own view when signed in. */
  async liveGame(origin: RequestOrigin, tournamentId: string): Promise<LiveGame> {
    const { game } = await delegate(
      this.deps.clients.game.getLiveGame({ actor: await actorOf(origin), tournamentId }),
    );
    if (!game) throw new Error('the game engine answered without a game');
    return game;
  }

  /**
   * One vote: acknowledged only once it is on `game.votes` and settled in the live store as
   * produced before the engine began closing the round (or already counted), so an acknowledged
   * vote is counted exactly once and a refused one never (docs/adr/0009). A produce that fails or
   * takes longer than `produceTimeoutMs`, or a live store that is unavailable, is answered
   * VOTE_NOT_RECORDED (retry). A vote from a player who already has one in the round is answered
   * with that vote's fate (a resend). A first vote in round 1 joins the caller (server rules).
   * Refusals are AppErrors with a stable reason.
   */
  async vote(origin: RequestOrigin, vote: VoteInput): Promise<VoteInput> {
    const started = performance.now();
    try {
      await this.deps.limits?.take('vote', origin);
      const answer = await this.admitAndProduce(origin, vote);
      this.metrics.accepted.inc();
      return answer;
    } catch (error) {
      this.metrics.refused.inc({ reason: isAppError(error) ? error.publicCode : 'INTERNAL' });
      throw error;
    } finally {
      this.metrics.ack.observe((performance.now() - started) / 1000);
    }
  }

  /**
   * One step on the live store; an unavailable store (Redis restarting, a Sentinel failover in
   * flight) is the retryable VOTE_NOT_RECORDED, never INTERNAL.
   */
  private async stored<R extends ScriptReply>(
    script: StoreScript<R>,
    keys: string[],
    args: Array<string | number>,
  ): Promise<R> {
    try {
      return await withStoreTimeout(
        this.deps.store.run(script, keys, args),
        this.storeTimeoutMs,
        script.name,
      );
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      this.deps.logger.warn(
        { err: error, script: script.name },
        'live store unavailable for a vote',
      );
      throw gameErrors.notRecorded(error);
    }
  }

  /**
   * A game's vote slots K (docs/adr/0012): read once the game exists, then kept (fixed for the
   * game's life). Before, one slot: no vote is admitted before round 1 opens, and by then the
   * game exists with its slots.
   */
  private async voteSlots(tournamentId: string): Promise<number> {
    const known = this.slotsOf.get(tournamentId);
    if (known !== undefined) return known;
    let field: string | null;
    try {
      field = await withStoreTimeout(
        this.deps.store.hGet(gameKeys(tournamentId).state, VOTE_SLOTS_FIELD),
        this.storeTimeoutMs,
        'reading the vote slots',
      );
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      this.deps.logger.warn({ err: error }, 'live store unavailable for a vote');
      throw gameErrors.notRecorded(error);
    }
    if (field === null) return 1;
    const slots = voteSlotsFrom(field);
    // A handful of live tournaments at a time; forget them all rather than grow without bound.
    if (this.slotsOf.size >= 1_000) this.slotsOf.clear();
    this.slotsOf.set(tournamentId, slots);
    return slots;
  }

  private async admitAndProduce(origin: RequestOrigin, vote: VoteInput): Promise<VoteInput> {
    let stageStarted = performance.now();
    const stageDone = (stage: 'actor' | 'admit' | 'produce') => {
      const now = performance.now();
      this.metrics.stage.observe({ stage }, (now - stageStarted) / 1000);
      stageStarted = now;
    };
    const actor = await origin.session.requireActor();
    stageDone('actor');
    if (!actor.isEmailVerified) throw commonErrors.emailNotVerified();
    const { tournamentId, roundNumber, imageId } = vote;
    if (!isRoundNumber(roundNumber)) {
      throw gameErrors.invalidRound();
    }
    if (!isImageOfRound(imageId, roundNumber)) throw gameErrors.invalidImage(roundNumber);

    // The player's vote slot (docs/adr/0012): its keys in the live store and its message key,
    // hence its partition of game.votes.
    const slots = await this.voteSlots(tournamentId);
    const slot = { slot: slotOf(actor.userId, slots), slots };
    // Back-pressure before anything is admitted: a vote acknowledged is one the engine applies
    // within the grace, so the round's close never waits on a backlog it could not drain.
    const place =
      this.backlog && (await this.backlog.place(votesKey(tournamentId, slot.slot, slots)));
    if (this.backlog && !place) throw gameErrors.backPressure();
    try {
      return await this.admitProduceAndSettle(origin, actor, vote, slot, stageDone, place);
    } finally {
      place?.done();
    }
  }

  private async admitProduceAndSettle(
    origin: RequestOrigin,
    actor: Awaited<ReturnType<RequestOrigin['session']['requireActor']>>,
    { tournamentId, roundNumber, imageId }: VoteInput,
    { slot, slots }: { slot: number; slots: number },
    stageDone: (stage: 'actor' | 'admit' | 'produce') => void,
    place: BacklogPlace | undefined,
  ): Promise<VoteInput> {
    const answer = { tournamentId, roundNumber, imageId };

    const keys: VoteKeys = { ...gameKeys(tournamentId), ...slotKeys(tournamentId, slot, slots) };
    const voteId = randomUUID();
    const admit = async (now: number) =>
      parseAdmission(
        await this.stored(
          admitVote,
          [
            keys.state,
            keys.players,
            keys.alive,
            keys.devices,
            keys.reserved(roundNumber),
            keys.ballots(roundNumber),
            keys.admitted(roundNumber),
          ],
          [actor.userId, roundNumber, imageId, now, origin.deviceId, voteId],
        ).catch((error: unknown) => {
          // The admission may have run with its answer lost (or run when ioredis reconnects and
          // sends it again): withdraw it once the store answers, so the retry is not held up by
          // a vote that was never produced. Best effort; the retry resolves it otherwise.
          if (isAppError(error) && error.reason === 'VOTE_NOT_RECORDED') {
            this.settle(keys, '', roundNumber, voteId, actor.userId, imageId, false).catch(
              () => undefined,
            );
          }
          throw error;
        }),
      );
    const settle = (gameId: string, id: string, produced: boolean) =>
      this.settle(keys, gameId, roundNumber, id, actor.userId, imageId, produced);
    let castAt = this.now();
    let admission = await admit(castAt);
    if (
      admission.kind === 'refused' &&
      admission.reply === 'NOT_PARTICIPANT' &&
      roundNumber === 1
    ) {
      // Joining by a first vote: the engine checks the window, verification and the device.
      // Too late to join means the voter is simply not a participant.
      await this.join(origin, tournamentId).catch((error: unknown) => {
        throw isAppError(error) && error.reason === 'JOIN_CLOSED'
          ? refusals.NOT_PARTICIPANT()
          : error;
      });
      castAt = this.now();
      admission = await admit(castAt);
    }

    // A vote of this player in this round exists (a resend): answer with its fate (ADR 9).
    const waitStarted = performance.now();
    let withdrawn = 0;
    while (admission.kind === 'known' || admission.kind === 'pending') {
      if (admission.kind === 'known') {
        this.deps.logger.info(
          { tournamentId, roundNumber },
          'a resent vote answered with its original, which counts',
        );
        stageDone('admit');
        return answer;
      }
      const original = admission;
      // Its own gateway settles it within the produce timeout (plus a margin) if alive; once the
      // votes are closing, the engine applies it if it was produced in time: wait for either.
      const waited = performance.now() - waitStarted;
      const settledByNow =
        original.where === 'resolved' ||
        (original.where === 'open' &&
          this.now() - original.castAt >= this.produceTimeoutMs + 1_000);
      if (!settledByNow && waited < this.resendWaitMs) {
        await sleep(this.resendPollMs);
      } else {
        // Nobody settled it (its gateway died): settle it here. Withdrawn unless counted.
        if (withdrawn >= 2) throw gameErrors.notRecorded();
        withdrawn += 1;
        const settled = await settle(original.gameId, original.voteId, false);
        if (settled === 'ACKNOWLEDGED' || settled === 'COUNTED') {
          this.deps.logger.info(
            { tournamentId, roundNumber, voteId: original.voteId, settled },
            'a resent vote answered with its original, which counts',
          );
          stageDone('admit');
          return answer;
        }
        this.deps.logger.warn(
          { tournamentId, roundNumber, voteId: original.voteId, settled, where: original.where },
          'a resent vote withdrew its original, which its gateway never settled',
        );
      }
      castAt = this.now();
      admission = await admit(castAt);
    }
    stageDone('admit');
    if (admission.kind === 'refused') {
      const refuse = refusals[admission.reply as Refusal] as (() => AppError) | undefined;
      if (!refuse) throw new Error(`unexpected vote admission reply ${admission.reply}`);
      // A refusal is final: after withdrawing the original here, only once that withdrawal
      // cannot be lost with the primary (the original may be on game.votes).
      if (withdrawn > 0) await this.withdrawalReplicated(voteId);
      throw refuse();
    }
    const { votingEndsAt, gameId } = admission;
    const event = create(GameVoteEventSchema, {
      tournamentId,
      kind: {
        case: 'voteCast',
        value: {
          voteId,
          gameId,
          userId: actor.userId,
          username: actor.username,
          roundNumber,
          imageId,
          castAt: timestampFromDate(new Date(castAt)),
          deviceId: origin.deviceId,
        },
      },
    });
    let produced = true;
    try {
      await withTimeout(
        this.deps.bus.publish(topics.gameVotes.name, [
          encodeEvent(GameVoteEventSchema, event, {
            key: votesKey(tournamentId, slot, slots),
            id: voteId,
          }),
        ]),
        this.produceTimeoutMs,
        'producing the vote to game.votes',
      );
    } catch (error) {
      // It may still land (the producer retries): settling withdraws it unless already counted.
      this.deps.logger.warn({ err: error, tournamentId, voteId }, 'vote not produced');
      produced = false;
    }
    place?.landed();
    stageDone('produce');
    // The answer is decided in the live store, atomically against the engine applying the vote
    // (docs/adr/0009): acknowledged only if it will be counted, refused only if it never will.
    const settled = await settle(gameId, voteId, produced);
    if (settled === 'ACKNOWLEDGED' || settled === 'COUNTED') return answer;
    // Not produced, or a resend took its place (that one answers for the player): retryable.
    if (!produced || settled === 'SUPERSEDED') throw gameErrors.notRecorded();
    // Produced after the engine began closing the round's votes, and withdrawn (or refused).
    // VOTING_CLOSED is final (no retry comes): only once the withdrawal cannot be lost with the
    // primary, or the promoted replica would count the vote.
    await this.withdrawalReplicated(voteId);
    this.deps.logger.warn(
      { tournamentId, voteId, roundNumber, late: this.now() - votingEndsAt, settled },
      'vote produced after the round began closing; not counted',
    );
    throw refusals.VOTING_CLOSED();
  }

  /**
   * Waits for `withdrawalReplicas` replicas to confirm the store's writes so far (the
   * withdrawal among them); fewer, or a store that does not answer, is VOTE_NOT_RECORDED.
   */
  private async withdrawalReplicated(voteId: string): Promise<void> {
    if (this.withdrawalReplicas === 0) return;
    let confirmed: number;
    try {
      confirmed = await withStoreTimeout(
        this.deps.store.waitForReplicas(this.withdrawalReplicas, this.withdrawalWaitMs),
        this.withdrawalWaitMs + this.storeTimeoutMs,
        'waitForReplicas',
      );
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      this.deps.logger.warn(
        { err: error, voteId },
        'live store unavailable while waiting for a withdrawal to replicate; answered VOTE_NOT_RECORDED',
      );
      throw gameErrors.notRecorded(error);
    }
    if (confirmed < this.withdrawalReplicas) {
      this.deps.logger.warn(
        { voteId, confirmed, wanted: this.withdrawalReplicas, waitedMs: this.withdrawalWaitMs },
        'a withdrawal was not confirmed by enough replicas; answered VOTE_NOT_RECORDED',
      );
      throw gameErrors.notRecorded();
    }
  }

  /**
   * Settles a vote (`settleVote`), retrying while the live store is unavailable (a failover) for
   * up to `settleRetryMs`: the vote may be on `game.votes` already, and only the settlement can
   * make the answer agree with the count. Past that, VOTE_NOT_RECORDED: the vote stays admitted
   * and unsettled, and the retry is answered with its fate (a resend).
   */
  private async settle(
    keys: VoteKeys,
    gameId: string,
    roundNumber: number,
    voteId: string,
    userId: string,
    imageId: string,
    produced: boolean,
  ): Promise<string> {
    const started = performance.now();
    let delay = 50;
    for (;;) {
      try {
        return await withStoreTimeout(
          this.deps.store.run(
            settleVote,
            [
              keys.state,
              keys.voteIds(roundNumber),
              keys.ballots(roundNumber),
              keys.reserved(roundNumber),
              keys.admitted(roundNumber),
            ],
            [gameId, roundNumber, voteId, userId, imageId, produced ? '1' : '0'],
          ),
          this.storeTimeoutMs,
          settleVote.name,
        );
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        if (performance.now() - started + delay > this.settleRetryMs) {
          this.deps.logger.warn(
            { err: error, voteId, produced },
            'live store unavailable: vote left unsettled, answered VOTE_NOT_RECORDED',
          );
          throw gameErrors.notRecorded(error);
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }
}
