import { performance } from 'node:perf_hooks';
import { isAppError, isStoreUnavailable, type Logger } from '@underdog/kit';
import { VOTE_SLOTS_FIELD, admitVote, gameKeys, voteSlotsFrom } from '@underdog/live-game';
import type { LiveStore, ScriptReply, StoreScript } from '@underdog/store';
import type { RequestOrigin } from '../session';
import { withStoreTimeout } from '../store-unavailable';
import { gameErrors, refusals } from './answers';
import { counts, type SettledVote, type VoteSettlement } from './settlement';
import { sleep, type VoteSettings } from './settings';

/** What a vote's admission says (`admitVote`'s reply, parsed). */
type Admission =
  /** `castAt`: a held vote's first cast (docs/adr/0009, 7), else the admission's own time. */
  | { kind: 'admitted'; votingEndsAt: number; gameId: string; castAt?: number }
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
  if (reply.startsWith('HELD:')) {
    const [, castAt = '0', votingEndsAt = '0', ...gameId] = reply.split(':');
    return {
      kind: 'admitted',
      votingEndsAt: Number(votingEndsAt),
      gameId: gameId.join(':'),
      castAt: Number(castAt),
    };
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
 * How an admission ends: the vote admitted (to be produced), an earlier vote of the player in
 * the round that counts (the answer for a resend), or a refusal — after withdrawing an original
 * here, final only once that withdrawal is replicated (`withdrewOriginal`).
 */
export type AdmissionOutcome =
  | { kind: 'admitted'; votingEndsAt: number; gameId: string; castAt: number }
  | { kind: 'counted' }
  | { kind: 'refused'; reply: string; withdrewOriginal: boolean };

export interface AdmissionDependencies {
  store: LiveStore;
  logger: Logger;
  /** The server time in ms since the epoch, the unit of the live store's deadlines. */
  now: () => number;
  settlement: VoteSettlement;
  /** Joins the caller (a first vote in round 1 joins, server rules). */
  join: (origin: RequestOrigin, tournamentId: string) => Promise<unknown>;
}

/**
 * The first step of a vote: one atomic step on the live store (`admitVote`) that reserves the
 * player's vote of the round, or answers with the fate of the one already there (a resend).
 */
export class VoteAdmission {
  /** Each game's vote slots, once it exists (see `voteSlots`). */
  private readonly slotsOf = new Map<string, number>();

  constructor(
    private readonly deps: AdmissionDependencies,
    private readonly settings: VoteSettings,
  ) {}

  /**
   * A game's vote slots K (docs/adr/0012): read once the game exists, then kept (fixed for the
   * game's life). Before, one slot: no vote is admitted before round 1 opens, and by then the
   * game exists with its slots.
   */
  async voteSlots(tournamentId: string): Promise<number> {
    const known = this.slotsOf.get(tournamentId);
    if (known !== undefined) return known;
    let field: string | null;
    try {
      field = await withStoreTimeout(
        this.deps.store.hGet(gameKeys(tournamentId).state, VOTE_SLOTS_FIELD),
        this.settings.storeTimeoutMs,
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

  /**
   * Admits vote `voteId`: a first vote in round 1 from a non-participant joins and tries again;
   * a vote of this player already in the round (a resend) is answered with its fate, settled
   * here once its own gateway can no longer settle it (docs/adr/0009).
   */
  async admit(
    origin: RequestOrigin,
    vote: SettledVote & { tournamentId: string },
    voteId: string,
  ): Promise<AdmissionOutcome> {
    const { tournamentId, roundNumber } = vote;
    const { settlement, logger } = this.deps;
    let castAt = this.deps.now();
    let admission = await this.admitOnce(origin, vote, voteId, castAt);
    if (
      admission.kind === 'refused' &&
      admission.reply === 'NOT_PARTICIPANT' &&
      roundNumber === 1
    ) {
      // Joining by a first vote: the engine checks the window, verification and the device.
      // Too late to join means the voter is simply not a participant.
      await this.deps.join(origin, tournamentId).catch((error: unknown) => {
        throw isAppError(error) && error.reason === 'JOIN_CLOSED'
          ? refusals.NOT_PARTICIPANT()
          : error;
      });
      castAt = this.deps.now();
      admission = await this.admitOnce(origin, vote, voteId, castAt);
    }

    // A vote of this player in this round exists (a resend): answer with its fate (ADR 9).
    const waitStarted = performance.now();
    let withdrawn = 0;
    while (admission.kind === 'known' || admission.kind === 'pending') {
      if (admission.kind === 'known') {
        logger.info(
          { tournamentId, roundNumber },
          'a resent vote answered with its original, which counts',
        );
        return { kind: 'counted' };
      }
      const original = admission;
      // Its own gateway settles it within the produce timeout (plus a margin) if alive; once the
      // votes are closing, the engine applies it if it was produced in time: wait for either.
      const waited = performance.now() - waitStarted;
      const settledByNow =
        original.where === 'resolved' ||
        (original.where === 'open' &&
          this.deps.now() - original.castAt >= this.settings.produceTimeoutMs + 1_000);
      if (!settledByNow && waited < this.settings.resendWaitMs) {
        await sleep(this.settings.resendPollMs);
      } else {
        // Nobody settled it (its gateway died): settle it here. Withdrawn unless counted.
        if (withdrawn >= 2) throw gameErrors.notRecorded();
        withdrawn += 1;
        const settled = await settlement.settle(vote, original.gameId, original.voteId, undefined);
        if (counts(settled)) {
          logger.info(
            { tournamentId, roundNumber, voteId: original.voteId, settled },
            'a resent vote answered with its original, which counts',
          );
          return { kind: 'counted' };
        }
        logger.warn(
          { tournamentId, roundNumber, voteId: original.voteId, settled, where: original.where },
          'a resent vote withdrew its original, which its gateway never settled',
        );
      }
      castAt = this.deps.now();
      admission = await this.admitOnce(origin, vote, voteId, castAt);
    }
    if (admission.kind === 'refused') {
      return { kind: 'refused', reply: admission.reply, withdrewOriginal: withdrawn > 0 };
    }
    // A held vote (cast in time, never recorded) goes on `game.votes` as of its first cast.
    return { ...admission, castAt: admission.castAt ?? castAt };
  }

  private async admitOnce(
    origin: RequestOrigin,
    vote: SettledVote,
    voteId: string,
    now: number,
  ): Promise<Admission> {
    const { keys, roundNumber, userId, imageId } = vote;
    const reply = await this.stored(
      admitVote,
      [
        keys.state,
        keys.players,
        keys.alive,
        keys.devices,
        keys.reserved(roundNumber),
        keys.ballots(roundNumber),
        keys.admitted(roundNumber),
        keys.held(roundNumber),
      ],
      [userId, roundNumber, imageId, now, origin.deviceId, voteId],
    ).catch((error: unknown) => {
      // The admission may have run with its answer lost (or run when ioredis reconnects and
      // sends it again): withdraw it once the store answers, so the retry is not held up by
      // a vote that was never produced. Best effort; the retry resolves it otherwise.
      if (isAppError(error) && error.reason === 'VOTE_NOT_RECORDED') {
        this.deps.settlement.settle(vote, '', voteId, undefined).catch(() => undefined);
      }
      throw error;
    });
    return parseAdmission(reply);
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
        this.settings.storeTimeoutMs,
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
}
