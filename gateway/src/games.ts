import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EventBus } from '@underdog/bus';
import {
  AppError,
  commonErrors,
  isAppError,
  systemClock,
  type Clock,
  type Logger,
  type Registry,
  withTimeout,
} from '@underdog/kit';
import { TOTAL_ROUNDS, admitVote, gameKeys, isImageOfRound, settleVote } from '@underdog/live-game';
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
import type { LiveStore } from '@underdog/store';
import { Counter, Histogram, type Metric } from 'prom-client';
import { actorOf, delegate } from './actors';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';

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
  /** Retryable: the vote was not produced in time, and settling made sure it never counts. */
  notRecorded: () =>
    new AppError('UNAVAILABLE', 'Your vote could not be recorded; please try again', {
      reason: 'VOTE_NOT_RECORDED',
    }),
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
  /**
   * Not used since the acknowledgement is settled in the live store (docs/adr/0009); kept until
   * VOTE_ACK_MARGIN_MS leaves the gateway's settings.
   */
  ackMarginMs?: number;
  /**
   * How long a vote's produce may take before the vote is answered VOTE_NOT_RECORDED (retryable;
   * default `DEFAULT_VOTE_PRODUCE_TIMEOUT_MS`): a broker or leader failover is not waited out.
   */
  produceTimeoutMs?: number;
}

/** The default of `GamesDependencies.produceTimeoutMs`. */
export const DEFAULT_VOTE_PRODUCE_TIMEOUT_MS = 2_500;

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

  constructor(private readonly deps: GamesDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.produceTimeoutMs = deps.produceTimeoutMs ?? DEFAULT_VOTE_PRODUCE_TIMEOUT_MS;
    this.metrics = voteMetrics(deps.registry);
  }

  /** The server time in ms since the epoch, the unit of the live store's deadlines. */
  private now(): number {
    return this.clock.now().getTime();
  }

  /** Verified users, while the tournament is upcoming or before round 1's voting ends. */
  async join(origin: RequestOrigin, tournamentId: string): Promise<PlayerView> {
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
   * takes longer than `produceTimeoutMs` is answered VOTE_NOT_RECORDED (retry). A first vote in
   * round 1 joins the caller (server rules). Refusals are AppErrors with a stable reason.
   */
  async vote(origin: RequestOrigin, vote: VoteInput): Promise<VoteInput> {
    const started = performance.now();
    try {
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
    if (!Number.isInteger(roundNumber) || roundNumber < 1 || roundNumber > TOTAL_ROUNDS) {
      throw gameErrors.invalidRound();
    }
    if (!isImageOfRound(imageId, roundNumber)) throw gameErrors.invalidImage(roundNumber);

    const keys = gameKeys(tournamentId);
    const admit = (now: number) =>
      this.deps.store.run(
        admitVote,
        [keys.state, keys.players, keys.alive, keys.devices, keys.reserved(roundNumber)],
        [actor.userId, roundNumber, imageId, now, origin.deviceId],
      );
    let castAt = this.now();
    let reply = await admit(castAt);
    if (reply === 'NOT_PARTICIPANT' && roundNumber === 1) {
      // Joining by a first vote: the engine checks the window, verification and the device.
      // Too late to join means the voter is simply not a participant.
      await this.join(origin, tournamentId).catch((error: unknown) => {
        throw isAppError(error) && error.reason === 'JOIN_CLOSED'
          ? refusals.NOT_PARTICIPANT()
          : error;
      });
      castAt = this.now();
      reply = await admit(castAt);
    }
    stageDone('admit');
    if (!reply.startsWith('OK:')) {
      const refuse = refusals[reply as Refusal] as (() => AppError) | undefined;
      if (!refuse) throw new Error(`unexpected vote admission reply ${reply}`);
      throw refuse();
    }
    const rest = reply.slice('OK:'.length);
    const separator = rest.indexOf(':');
    const votingEndsAt = Number(rest.slice(0, separator));
    const gameId = rest.slice(separator + 1);
    const voteId = randomUUID();
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
          encodeEvent(GameVoteEventSchema, event, { key: tournamentId, id: voteId }),
        ]),
        this.produceTimeoutMs,
        'producing the vote to game.votes',
      );
    } catch (error) {
      // It may still land (the producer retries): settling withdraws it unless already counted.
      this.deps.logger.warn({ err: error, tournamentId, voteId }, 'vote not produced');
      produced = false;
    }
    stageDone('produce');
    // The answer is decided in the live store, atomically against the engine applying the vote
    // (docs/adr/0009): acknowledged only if it will be counted, refused only if it never will.
    const settled = await this.deps.store.run(
      settleVote,
      [
        keys.state,
        keys.voteIds(roundNumber),
        keys.ballots(roundNumber),
        keys.reserved(roundNumber),
      ],
      [gameId, roundNumber, voteId, actor.userId, imageId, produced ? '1' : '0'],
    );
    if (settled === 'ACKNOWLEDGED' || settled === 'COUNTED') {
      return { tournamentId, roundNumber, imageId };
    }
    if (!produced) throw gameErrors.notRecorded();
    // Produced after the engine began closing the round's votes, and withdrawn (or refused).
    this.deps.logger.warn(
      { tournamentId, voteId, roundNumber, late: this.now() - votingEndsAt, settled },
      'vote produced after the round began closing; not counted',
    );
    throw refusals.VOTING_CLOSED();
  }
}
