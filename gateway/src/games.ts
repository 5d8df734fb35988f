import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EventBus } from '@underdog/bus';
import {
  commonErrors,
  isAppError,
  systemClock,
  type Clock,
  type Logger,
  type Registry,
} from '@underdog/kit';
import { slotOf, votesKey } from '@underdog/live-game';
import { isImageOfRound, isRoundNumber } from '@underdog/rules';
import { PlayerViewSchema, create, type LiveGame, type PlayerView } from '@underdog/proto';
import type { LiveStore } from '@underdog/store';
import { actorOf, delegate } from './actors';
import type { FairPlaySignals, OriginHashes } from './fair-play-signals';
import type { GameActionLimits } from './game-action-limits';
import type { GatewayClients } from './clients';
import type { RequestOrigin } from './session';
import {
  VoteBacklog,
  backlogMetrics,
  type BacklogPlace,
  type VoteBacklogSettings,
} from './vote-backlog';
import { VoteAdmission } from './votes/admission';
import { gameErrors, refusalOf, type VoteInput } from './votes/answers';
import { voteMetrics, type VoteMetrics, type VoteStage } from './votes/metrics';
import { produceVote } from './votes/production';
import { VoteSettlement, voteKeys } from './votes/settlement';
import { voteSettings, type VoteSettings, type VoteTimings } from './votes/settings';

export type { VoteInput } from './votes/answers';
export { DEFAULT_WITHDRAWAL_WAIT_MS } from './votes/settings';

/** The vote's timings (`VoteTimings`: produce, resend, settlement, store and withdrawal). */
export interface GamesDependencies extends VoteTimings {
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
   * Back-pressure (issue 35): a vote is refused with the retryable VOTE_NOT_RECORDED before it
   * is admitted or produced while its `game.votes` partition holds `maxMessages` votes the engine
   * has not applied (`VoteBacklog`). Unset: no back-pressure.
   */
  backlog?: VoteBacklogSettings;
  /**
   * Fair play (issue 36): the keyed hashes of a vote's origin (`FairPlaySignals.hashesOf`, once
   * per socket), put on its `game.votes` event for the tournament service's fair-play report,
   * instead of a second message per vote. Absent: the event carries none (tests).
   */
  fairPlay?: Pick<FairPlaySignals, 'hashesOf'>;
}

const noHashes: OriginHashes = { deviceId: '', addressPrefix: '', userAgent: '' };

type Actor = Awaited<ReturnType<RequestOrigin['session']['requireActor']>>;

/**
 * The live game behind every edge: GraphQL, the `/ws` game actions and the demo bots all call
 * these. Joining and the snapshot are the engine's (GameService); a vote is admitted here with
 * one atomic step on the live store (`votes/admission`), produced to `game.votes` with acks from
 * all in-sync replicas (`votes/production`), settled with a second step (`votes/settlement`), and
 * only then acknowledged; its refusals and errors are in `votes/answers`.
 */
export class Games {
  private readonly clock: Clock;
  private readonly metrics: VoteMetrics;
  private readonly settings: VoteSettings;
  private readonly admission: VoteAdmission;
  private readonly settlement: VoteSettlement;
  private readonly backlog: VoteBacklog | undefined;

  constructor(private readonly deps: GamesDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.settings = voteSettings(deps);
    this.metrics = voteMetrics(deps.registry);
    this.settlement = new VoteSettlement(
      { store: deps.store, logger: deps.logger, now: () => this.now() },
      this.settings,
    );
    this.admission = new VoteAdmission(
      {
        store: deps.store,
        logger: deps.logger,
        now: () => this.now(),
        settlement: this.settlement,
        join: (origin, tournamentId) => this.join(origin, tournamentId),
      },
      this.settings,
    );
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

  private async admitAndProduce(origin: RequestOrigin, vote: VoteInput): Promise<VoteInput> {
    let stageStarted = performance.now();
    const stageDone = (stage: VoteStage) => {
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
    const slots = await this.admission.voteSlots(tournamentId);
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
    actor: Actor,
    { tournamentId, roundNumber, imageId }: VoteInput,
    slot: { slot: number; slots: number },
    stageDone: (stage: VoteStage) => void,
    place: BacklogPlace | undefined,
  ): Promise<VoteInput> {
    const answer = { tournamentId, roundNumber, imageId };
    const vote = {
      tournamentId,
      roundNumber,
      imageId,
      userId: actor.userId,
      keys: voteKeys(tournamentId, slot.slot, slot.slots),
    };
    const voteId = randomUUID();
    const admission = await this.admission.admit(origin, vote, voteId);
    stageDone('admit');
    if (admission.kind === 'counted') return answer;
    if (admission.kind === 'refused') {
      const refusal = refusalOf(admission.reply);
      // A refusal is final: after withdrawing the original here, only once that withdrawal
      // cannot be lost with the primary (the original may be on game.votes).
      if (admission.withdrewOriginal) await this.settlement.withdrawalReplicated(voteId);
      throw refusal;
    }
    const { votingEndsAt, gameId, castAt } = admission;
    const where = this.originHashes(origin);
    const produced = await produceVote(
      this.deps,
      {
        tournamentId,
        voteId,
        gameId,
        userId: actor.userId,
        username: actor.username,
        roundNumber,
        imageId,
        castAt,
        deviceId: origin.deviceId,
        fairPlayDeviceId: where.deviceId,
        fairPlayAddressPrefix: where.addressPrefix,
        fairPlayUserAgent: where.userAgent,
        slot,
      },
      this.settings.produceTimeoutMs,
    );
    place?.landed();
    stageDone('produce');
    await this.settlement.settleProduced({ ...vote, votingEndsAt }, gameId, voteId, produced);
    return answer;
  }

  /** The vote's fair-play hashes; none rather than a failed vote (a lost signal never fails one). */
  private originHashes(origin: RequestOrigin): OriginHashes {
    try {
      return this.deps.fairPlay?.hashesOf(origin) ?? noHashes;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'vote without its fair-play hashes');
      return noHashes;
    }
  }
}
