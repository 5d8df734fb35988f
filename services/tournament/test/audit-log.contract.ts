import { ComponentGroup, type Clock } from '@underdog/kit';
import { allTopics, topics, type Infrastructure } from '@underdog/platform';
import {
  AdminActionEventSchema,
  GameEventSchema,
  TournamentService,
  create,
  encodeEvent,
  timestampDate,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import { createClient, createInProcessTransport, type Client } from '@underdog/rpc';
import { actors, failureOf, testClock, testContext, waitFor } from '@underdog/test-support';
import { tournamentConfig } from '../src/config';
import { createTournamentModule } from '../src/service';

/**
 * The audit log and the prizes, end to end inside the tournament service: events published on
 * the real topics (`admin.actions`, `game.events`), consumed by the service's own consumers,
 * stored, and read through its RPCs — on the in-memory bus and store (standalone mode, unit tier)
 * and on Kafka and FerretDB (distributed mode, integration tier). What must hold on both:
 *
 * - each `admin.actions` event is one row, however often it is delivered (event id);
 * - the list is newest first, paged by `limit` and the `next_before` cursor, admin only;
 * - a prize can be confirmed paid only once its game ended with a winner, once, with who/when.
 */
export function auditLogContract(
  name: string,
  open: () => Promise<{ infrastructure: Infrastructure; close: () => Promise<void> }>,
): void {
  describe(`the audit log and prizes on ${name}`, () => {
    let client: Client<typeof TournamentService>;
    let infrastructure: Infrastructure;
    let group: ComponentGroup;
    let close: () => Promise<void>;
    const clock = testClock(new Date('2030-01-01T12:00:00.000Z'));

    beforeAll(async () => {
      ({ infrastructure, close } = await open());
      const context = testContext(infrastructure);
      const module = createTournamentModule(context, tournamentConfig({}), {
        clock: clock satisfies Clock,
      });
      const consumers = module.components.filter((component) =>
        ['admin-actions-consumer', 'prizes-consumer'].includes(component.name),
      );
      expect(consumers).toHaveLength(2);
      await infrastructure.bus.ensureTopics(allTopics);
      group = new ComponentGroup(context.logger, [...infrastructure.components, ...consumers]);
      await group.start();
      const routes = module.registerRpc;
      if (!routes) throw new Error('no RPC handlers');
      client = createClient(TournamentService, createInProcessTransport(routes));
    });
    afterAll(async () => {
      await group.stop();
      await close();
    });

    type Kind = MessageInitShape<typeof AdminActionEventSchema>['kind'];
    const action = (id: string, at: string, kind: Kind, actorUserId = 'admin-1') =>
      encodeEvent(
        AdminActionEventSchema,
        create(AdminActionEventSchema, {
          actorUserId,
          actorUsername: actorUserId === 'admin-1' ? 'admin' : actorUserId,
          occurredAt: timestampFromDate(new Date(at)),
          requestId: `req-${id}`,
          summary: `summary of ${id}`,
          kind,
        }),
        { key: actorUserId, id },
      );

    it('stores each action once by event id and lists them newest first, a page at a time', async () => {
      const run = `${name}-${Date.now()}`; // ids unique to this run
      const ids = ['a', 'b', 'c', 'd'].map((letter) => `${run}-${letter}`);
      await infrastructure.bus.publish(topics.adminActions.name, [
        action(ids[0]!, '2030-01-01T10:00:00.000Z', {
          case: 'tournamentCreated',
          value: { tournamentId: 't-1', title: 'Cup' },
        }),
        action(ids[1]!, '2030-01-01T10:01:00.000Z', {
          case: 'advertisementDeleted',
          value: { advertisementId: 'ad-1' },
        }),
      ]);
      // The same event again (a redelivery), one without an actor, and two more by another admin.
      await infrastructure.bus.publish(topics.adminActions.name, [
        action(ids[1]!, '2030-01-01T10:01:00.000Z', {
          case: 'advertisementDeleted',
          value: { advertisementId: 'ad-1' },
        }),
        action(
          `${run}-unusable`,
          '2030-01-01T10:02:00.000Z',
          { case: 'tournamentDeleted', value: { tournamentId: 't-1' } },
          '', // no actor: logged and skipped
        ),
        action(
          ids[2]!,
          '2030-01-01T10:03:00.000Z',
          {
            case: 'participantDisqualified',
            value: {
              tournamentId: 't-1',
              userId: 'u-9',
              reason: 'ring',
              duringGame: true,
              effectiveRound: 3,
            },
          },
          'admin-2',
        ),
        action(
          ids[3]!,
          '2030-01-01T10:04:00.000Z',
          {
            case: 'prizePaidConfirmed',
            value: { tournamentId: 't-1', winnerUserId: 'u-1', winnerUsername: 'winner' },
          },
          'admin-2',
        ),
      ]);
      const mine = async () =>
        (await client.listAdminActions({ actor: actors.admin(), limit: 200 })).actions.filter(
          (row) => row.id.startsWith(run),
        );
      const rows = await waitFor(async () => {
        const found = await mine();
        return found.length >= 4 && found;
      }, 'the four actions stored');
      expect(rows.map((row) => row.id)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
      expect(rows[1]).toMatchObject({
        action: 'participantDisqualified',
        actorUserId: 'admin-2',
        actorUsername: 'admin-2',
        tournamentId: 't-1',
        targetUserId: 'u-9',
        summary: `summary of ${ids[2]}`,
        requestId: `req-${ids[2]}`,
      });
      expect(timestampDate(rows[1]!.occurredAt!).toISOString()).toBe('2030-01-01T10:03:00.000Z');
      expect(rows[2]).toMatchObject({ action: 'advertisementDeleted', advertisementId: 'ad-1' });
      expect(rows[3]).toMatchObject({ action: 'tournamentCreated', tournamentId: 't-1' });

      // Pages of two: the cursor leads to the older two, then there is no more of this run.
      const first = await client.listAdminActions({ actor: actors.admin(), limit: 2 });
      expect(first.actions.map((row) => row.id)).toEqual([ids[3], ids[2]]);
      expect(first.nextBefore).not.toBe('');
      const second = await client.listAdminActions({
        actor: actors.admin(),
        limit: 2,
        before: first.nextBefore,
      });
      expect(second.actions.map((row) => row.id)).toEqual([ids[1], ids[0]]);

      expect(await failureOf(client.listAdminActions({ actor: actors.user('u-1') }))).toMatchObject(
        { code: 'FORBIDDEN', reason: 'ADMIN_ONLY' },
      );
      expect(await failureOf(client.listAdminActions({ actor: actors.visitor() }))).toMatchObject({
        code: 'UNAUTHENTICATED',
      });
      expect(
        await failureOf(client.listAdminActions({ actor: actors.admin(), limit: 201 })),
      ).toMatchObject({ code: 'BAD_REQUEST' });
    });

    const newTournament = async (title: string) => {
      const { tournament } = await client.createTournament({
        actor: actors.admin(),
        title,
        prize: '$50',
        startAt: timestampFromDate(new Date(clock.now().getTime() + 3_600_000)),
      });
      if (!tournament) throw new Error('no tournament');
      return tournament.id;
    };
    const gameEvent = (
      tournamentId: string,
      kind: MessageInitShape<typeof GameEventSchema>['kind'],
    ) =>
      encodeEvent(
        GameEventSchema,
        create(GameEventSchema, {
          tournamentId,
          gameId: `game-${tournamentId}`,
          occurredAt: timestampFromDate(clock.now()),
          kind,
        }),
        { key: tournamentId },
      );

    it('confirms a prize paid once its game ended with a winner, once, with who and when', async () => {
      const won = await newTournament('Won');
      const empty = await newTournament('Nobody won');
      const pending = await newTournament('Not played yet');
      const redecided = await newTournament('Re-decided');
      const confirm = (tournamentId: string, actor = actors.admin()) =>
        client.confirmPrizePaid({ actor, tournamentId });

      expect(await failureOf(confirm(pending))).toMatchObject({
        code: 'CONFLICT',
        reason: 'TOURNAMENT_NOT_FINISHED',
      });
      expect(await failureOf(confirm('no-such-tournament'))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await failureOf(confirm(won, actors.user('u-1')))).toMatchObject({
        code: 'FORBIDDEN',
      });
      expect(await failureOf(confirm(won, actors.visitor()))).toMatchObject({
        code: 'UNAUTHENTICATED',
      });

      const ended = (winner?: { id: string; name: string }) => ({
        case: 'gameEnded' as const,
        value: {
          ...(winner ? { winnerUserId: winner.id, winnerUsername: winner.name } : {}),
          prize: '$50',
          roundsPlayed: 17,
          decidedBy: winner ? 'last_standing' : 'no_winner',
        },
      });
      await infrastructure.bus.publish(topics.gameEvents.name, [
        gameEvent(won, ended({ id: 'u-1', name: 'winner' })),
        gameEvent(won, ended({ id: 'u-1', name: 'winner' })), // a redelivery
        gameEvent(empty, ended()),
        gameEvent(redecided, ended({ id: 'u-2', name: 'cheat' })),
        gameEvent(redecided, {
          case: 'participantDisqualified',
          value: {
            userId: 'u-2',
            username: 'cheat',
            reason: 'ring',
            afterGame: true,
            winnerUserId: 'u-3',
          },
        }),
      ]);

      const paid = await waitFor(async () => {
        try {
          return await confirm(won);
        } catch {
          return false;
        }
      }, 'the game end recorded');
      expect(paid.alreadyConfirmed).toBe(false);
      expect(paid.payment).toMatchObject({
        tournamentId: won,
        winnerUserId: 'u-1',
        winnerUsername: 'winner',
        prize: '$50',
        paidByUserId: 'admin-1',
        paidByUsername: 'admin',
      });
      expect(timestampDate(paid.payment!.paidAt!)).toEqual(clock.now());

      clock.advance(60_000);
      const again = await confirm(won, actors.admin({ userId: 'admin-2' }));
      expect(again.alreadyConfirmed).toBe(true);
      expect(again.payment).toEqual(paid.payment); // the first confirmation stands

      const noWinner = await waitFor(async () => {
        const failure = await failureOf(confirm(empty));
        return failure.reason === 'NO_WINNER' && failure;
      }, 'the empty game recorded');
      expect(noWinner.code).toBe('CONFLICT');

      const toRedecided = await waitFor(async () => {
        try {
          return await confirm(redecided);
        } catch {
          return false;
        }
      }, 'the re-decided game recorded');
      expect(toRedecided.payment?.winnerUserId).toBe('u-3');

      const { payments } = await client.listPrizePayments({ actor: actors.admin() });
      expect(payments.map((payment) => payment.tournamentId).sort()).toEqual(
        [won, redecided].sort(),
      );
      expect(await failureOf(client.listPrizePayments({ actor: actors.user() }))).toMatchObject({
        code: 'FORBIDDEN',
      });
    });
  });
}
