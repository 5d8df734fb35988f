// Over 300 lines: one class that lists every audited admin call in one place, on purpose (ADR 11).
import type { EventBus } from '@underdog/bus';
import {
  currentRequestId,
  systemClock,
  type Clock,
  type Logger,
  type Registry,
} from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  AdminActionEventSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type AdminActionEvent,
  type MessageInitShape,
} from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';
import { Counter } from 'prom-client';
import { clientAddressOf } from './actors';
import type { GatewayClients } from './clients';

type ActionKind = MessageInitShape<typeof AdminActionEventSchema>['kind'];

/** What one audited call changed: the event's case and its one-line summary. */
interface Described {
  kind: ActionKind;
  summary: string;
}

/** How the publish of an action is retried before it is given up (loudly). */
export interface AdminActionRetry {
  /** Attempts in all, the first one included; default 6. */
  attempts: number;
  /** The wait before the second attempt, doubled after each; default 500 ms. */
  firstDelayMs: number;
}

const defaultRetry: AdminActionRetry = { attempts: 6, firstDelayMs: 500 };

const quoted = (text: string) => `"${text}"`;

/** What the audit reads of a request's actor (`underdog.common.v1.Actor`, as sent). */
interface ActorFields {
  userId?: string;
  username?: string;
}

/** The codes of a call refused because of who called (issue 37): audited as `attemptRefused`. */
const refusalCodes = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

/** The audit of each wrapped client set, for the checks made at the gateway itself. */
const auditOfClients = new WeakMap<object, AdminActions>();

/**
 * The audit log behind clients that `AdminActions.wrap` returned (any of their service
 * clients); undefined for clients that were not wrapped (unit tests' stand-ins).
 */
export function adminAuditOf(client: object): AdminActions | undefined {
  return auditOfClients.get(client);
}

/**
 * The audit log's one producer (issue 28 §4, ADR 11): every service client call that changes
 * something on an administrator's behalf goes through `wrap`, which, after the call succeeded,
 * publishes an `AdminActionEvent` on `admin.actions` (who, when, what, the request id, the
 * client address). The calls are listed below, in one place, so a new admin mutation is added
 * here or not at all. Every admin operation — those mutations and the admin-only reads — that a
 * service refuses because of who called (UNAUTHENTICATED, FORBIDDEN) is published too, as
 * `attemptRefused` (issue 37), and so is each read of a fair-play report (`fairPlayReportRead`,
 * published by fair-play.ts).
 *
 * Delivery: the first attempt is awaited, so when the admin sees the answer the action is on the
 * topic (acks all on Kafka). A failed publish never fails the admin's request — the change was
 * made — but is retried in the background with a doubling back-off (about 15 s over 6 attempts);
 * an action still unpublished after that is logged at error level with its whole event and
 * counted (`underdog_admin_actions_unpublished_total`), so an operator can alert on it and
 * replay it by hand. See ADR 11 for why not an outbox per service.
 */
export class AdminActions {
  private readonly published: Counter;
  private readonly unpublished: Counter;
  private readonly retry: AdminActionRetry;
  private readonly clock: Clock;

  constructor(
    private readonly deps: {
      bus: EventBus;
      logger: Logger;
      registry: Registry;
      clock?: Clock;
      retry?: Partial<AdminActionRetry>;
    },
  ) {
    this.retry = { ...defaultRetry, ...deps.retry };
    this.clock = deps.clock ?? systemClock;
    this.published = counter(
      deps.registry,
      'underdog_admin_actions_published_total',
      'Admin actions published on admin.actions (the audit log)',
    );
    this.unpublished = counter(
      deps.registry,
      'underdog_admin_actions_unpublished_total',
      'Admin actions that could not be published on admin.actions after every retry',
    );
  }

  /**
   * The clients with every admin mutation audited, and every refused admin operation; players'
   * calls are untouched.
   */
  wrap(clients: GatewayClients): GatewayClients {
    const { tournament, ads, game } = clients;
    // `named` looks up, before the call, the title of what it names (gone after a delete):
    // only for the summary, so a failed lookup leaves the id there instead.
    const audited =
      <Req extends { actor?: ActorFields }, Res, Options>(
        call: (request: Req, options?: Options) => Promise<Res>,
        describe: (request: Req, response: Res, title: string | undefined) => Described | undefined,
        named?: (request: Req) => Promise<string | undefined>,
      ) =>
      async (request: Req, options?: Options): Promise<Res> => {
        const title = named ? await named(request).catch(() => undefined) : undefined;
        const response = await call(request, options);
        const described = describe(request, response, title);
        if (described) await this.publish(request.actor, described);
        return response;
      };
    // Every call listed below is an admin operation (the ads' list: without a position, the
    // dashboard's; with one, the public list, which refuses no one): its refusals are audited.
    const refusalsAudited = <Methods extends object>(service: string, methods: Methods): Methods =>
      Object.fromEntries(
        Object.entries(methods).map(([method, call]) => [
          method,
          (request: { actor?: ActorFields; tournamentId?: string }, options?: unknown) =>
            this.refusalsAudited(`${service}.${method}`, request, () =>
              (call as (request: unknown, options?: unknown) => Promise<unknown>)(request, options),
            ),
        ]),
      ) as Methods;
    const tournamentTitle = async (id: string | undefined) =>
      (await tournament.getTournament({ id: id ?? '' })).tournament?.title;
    const adTitle = async (request: { actor?: ActorFields; id?: string }) =>
      (await ads.listAdvertisements({ actor: request.actor })).advertisements.find(
        (ad) => ad.id === request.id,
      )?.title;
    const auditedTournament: Partial<GatewayClients['tournament']> = {
      getFairPlayReport: tournament.getFairPlayReport,
      listAdminActions: tournament.listAdminActions,
      listPrizePayments: tournament.listPrizePayments,
      createTournament: audited(tournament.createTournament, (_req, res) => ({
        kind: {
          case: 'tournamentCreated',
          value: { tournamentId: res.tournament?.id ?? '', title: res.tournament?.title ?? '' },
        },
        summary: `Created tournament ${quoted(res.tournament?.title ?? '')}`,
      })),
      updateTournament: audited(tournament.updateTournament, (req, res) => ({
        kind: {
          case: 'tournamentUpdated',
          value: { tournamentId: req.id ?? '', title: res.tournament?.title ?? req.title ?? '' },
        },
        summary: `Updated tournament ${quoted(res.tournament?.title ?? req.title ?? '')}`,
      })),
      deleteTournament: audited(
        tournament.deleteTournament,
        (req, _res, title) => ({
          kind: { case: 'tournamentDeleted', value: { tournamentId: req.id ?? '' } },
          summary: `Deleted tournament ${title ? quoted(title) : (req.id ?? '')}`,
        }),
        (req) => tournamentTitle(req.id),
      ),
      confirmPrizePaid: audited(
        tournament.confirmPrizePaid,
        (req, res, title) => {
          // A repeat confirms nothing new: the first confirmation is the one audited.
          if (res.alreadyConfirmed) return undefined;
          const payment = res.payment;
          const winner = payment?.winnerUsername || payment?.winnerUserId || '';
          const prize = payment?.prize ? ` (${payment.prize})` : '';
          return {
            kind: {
              case: 'prizePaidConfirmed',
              value: {
                tournamentId: req.tournamentId ?? '',
                winnerUserId: payment?.winnerUserId ?? '',
                winnerUsername: payment?.winnerUsername ?? '',
                ...(payment?.prize === undefined ? {} : { prize: payment.prize }),
              },
            },
            summary: `Confirmed the prize${prize} of ${title ? quoted(title) : `tournament ${req.tournamentId ?? ''}`} paid to ${winner}`,
          };
        },
        (req) => tournamentTitle(req.tournamentId),
      ),
    };
    const auditedAds: Partial<GatewayClients['ads']> = {
      listAdvertisements: ads.listAdvertisements,
      createAdvertisement: audited(ads.createAdvertisement, (_req, res) => ({
        kind: {
          case: 'advertisementCreated',
          value: {
            advertisementId: res.advertisement?.id ?? '',
            title: res.advertisement?.title ?? '',
          },
        },
        summary: `Created advertisement ${quoted(res.advertisement?.title ?? '')}`,
      })),
      updateAdvertisement: audited(ads.updateAdvertisement, (req, res) => ({
        kind: {
          case: 'advertisementUpdated',
          value: { advertisementId: req.id ?? '', title: res.advertisement?.title ?? '' },
        },
        summary: `Updated advertisement ${quoted(res.advertisement?.title ?? req.id ?? '')}`,
      })),
      deleteAdvertisement: audited(
        ads.deleteAdvertisement,
        (req, _res, title) => ({
          kind: { case: 'advertisementDeleted', value: { advertisementId: req.id ?? '' } },
          summary: `Deleted advertisement ${title ? quoted(title) : (req.id ?? '')}`,
        }),
        adTitle,
      ),
    };
    const auditedGame: Partial<GatewayClients['game']> = {
      listTournamentHistory: game.listTournamentHistory,
      getTournamentDetails: game.getTournamentDetails,
      disqualifyParticipant: audited(game.disqualifyParticipant, (req, res) => ({
        kind: {
          case: 'participantDisqualified',
          value: {
            tournamentId: req.tournamentId ?? '',
            userId: req.userId ?? '',
            reason: req.reason ?? '',
            duringGame: res.duringGame,
            effectiveRound: res.effectiveRound,
          },
        },
        summary:
          `Disqualified user ${req.userId ?? ''} from tournament ${req.tournamentId ?? ''}` +
          (res.duringGame ? ` (out after round ${res.effectiveRound})` : ' (after the game)') +
          `: ${req.reason ?? ''}`,
      })),
    };
    const wrapped = {
      ...clients,
      tournament: Object.assign(
        Object.create(tournament) as typeof tournament,
        refusalsAudited('tournament', auditedTournament),
      ),
      ads: Object.assign(Object.create(ads) as typeof ads, refusalsAudited('ads', auditedAds)),
      game: Object.assign(Object.create(game) as typeof game, refusalsAudited('game', auditedGame)),
    };
    for (const client of [wrapped, wrapped.tournament, wrapped.ads, wrapped.game]) {
      auditOfClients.set(client, this);
    }
    return wrapped;
  }

  /**
   * Publishes a refused attempt at `operation` when `error` refuses the caller (a visitor:
   * UNAUTHENTICATED, anyone else: FORBIDDEN); any other error is not the audit's. Used by the
   * wrapped clients and by the gateway's own admin checks (disqualification.ts).
   */
  async refused(
    actor: ActorFields | undefined,
    operation: string,
    error: unknown,
    tournamentId = '',
  ): Promise<void> {
    const code = appErrorFromRpc(error).code;
    if (!refusalCodes.has(code)) return;
    const who = actor?.username || actor?.userId || 'a visitor';
    await this.publish(actor, {
      // The id as the caller sent it, bounded: a refused caller's input is not validated.
      kind: {
        case: 'attemptRefused',
        value: { operation, code, tournamentId: tournamentId.slice(0, 200) },
      },
      summary: `Refused ${operation} to ${who} (${code})`,
    });
  }

  /** Publishes that `actor` read the fair-play report of `tournamentId` (fair-play.ts). */
  async fairPlayReportRead(actor: ActorFields | undefined, tournamentId: string): Promise<void> {
    await this.publish(actor, {
      kind: { case: 'fairPlayReportRead', value: { tournamentId } },
      summary: `Read the fair-play report of tournament ${tournamentId}`,
    });
  }

  private async refusalsAudited<Res>(
    operation: string,
    request: { actor?: ActorFields; tournamentId?: string },
    call: () => Promise<Res>,
  ): Promise<Res> {
    try {
      return await call();
    } catch (error) {
      await this.refused(request.actor, operation, error, request.tournamentId ?? '');
      throw error;
    }
  }

  /** The event of an action by `actor` (tests read it without a bus). */
  event(actor: ActorFields | undefined, { kind, summary }: Described): AdminActionEvent {
    return create(AdminActionEventSchema, {
      actorUserId: actor?.userId ?? '',
      actorUsername: actor?.username ?? '',
      occurredAt: timestampFromDate(this.clock.now()),
      requestId: currentRequestId() ?? '',
      summary,
      kind,
      clientAddress: clientAddressOf(actor),
    });
  }

  private async publish(actor: ActorFields | undefined, described: Described): Promise<void> {
    const event = this.event(actor, described);
    const record = encodeEvent(AdminActionEventSchema, event, {
      key: event.actorUserId || event.clientAddress,
    });
    const attempt = async () => {
      await this.deps.bus.publish(topics.adminActions.name, [record]);
    };
    try {
      await attempt();
      this.published.inc();
    } catch (error) {
      this.deps.logger.warn(
        { err: error, action: event.kind.case },
        'admin action not yet published; retrying in the background',
      );
      void this.retryLater(attempt, event, record.headers['event-id'] ?? '');
    }
  }

  private async retryLater(
    attempt: () => Promise<void>,
    event: AdminActionEvent,
    eventId: string,
  ): Promise<void> {
    let delay = this.retry.firstDelayMs;
    let lastError: unknown;
    for (let left = this.retry.attempts - 1; left > 0; left -= 1) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
      try {
        await attempt(); // the same record, so the same event id: stored once however often sent
        this.published.inc();
        return;
      } catch (error) {
        lastError = error;
      }
    }
    this.unpublished.inc();
    this.deps.logger.error(
      {
        err: lastError,
        eventId,
        action: event.kind.case,
        actorUserId: event.actorUserId,
        actorUsername: event.actorUsername,
        requestId: event.requestId,
        summary: event.summary,
      },
      'ADMIN ACTION NOT IN THE AUDIT LOG: publishing to admin.actions failed after every retry',
    );
  }
}

function counter(registry: Registry, name: string, help: string): Counter {
  return (
    (registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help, registers: [registry] })
  );
}
