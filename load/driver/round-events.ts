/**
 * The round bench's view of the game: the tournament's `live` event announced as the tournament
 * service does, and round 1's game events followed from the bench's own group.
 */
import type { BusMessage, createKafkaBus, Subscription } from '@underdog/bus';
import { topics } from '@underdog/platform';
import {
  GameEventSchema,
  TournamentLifecycleEventSchema,
  TournamentSchema,
  TournamentStatus,
  create,
  encodeEvent,
  fromBinary,
  timestampFromDate,
  type GameEvent,
} from '@underdog/proto';

type Bus = ReturnType<typeof createKafkaBus>;

/** Resolves with the first event of `kind` for round 1 of the tournament. */
export function eventWaiter() {
  const waiting = new Map<string, (event: GameEvent, receivedAt: number) => void>();
  const seen = new Map<string, { event: GameEvent; receivedAt: number }>();
  return {
    take(event: GameEvent, receivedAt: number) {
      const kind = event.kind.case;
      if (!kind || seen.has(kind)) return;
      seen.set(kind, { event, receivedAt });
      waiting.get(kind)?.(event, receivedAt);
    },
    next(kind: string, timeoutMs: number): Promise<{ event: GameEvent; receivedAt: number }> {
      const already = seen.get(kind);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${kind} in ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        waiting.set(kind, (event, receivedAt) => {
          clearTimeout(timer);
          resolve({ event, receivedAt });
        });
      });
    },
  };
}

/** The tournament's game events of round `roundNumber`, from the group `groupId`, to `waiter`. */
export function followRound(
  bus: Bus,
  groupId: string,
  tournamentId: string,
  roundNumber: number,
  waiter: ReturnType<typeof eventWaiter>,
): Promise<Subscription> {
  return bus.subscribe({
    groupId,
    topics: [topics.gameEvents.name],
    fromBeginning: true,
    handleBatch: async (batch: BusMessage[]) => {
      const receivedAt = Date.now();
      for (const message of batch) {
        if (message.key !== tournamentId || !message.value) continue;
        const event = fromBinary(GameEventSchema, message.value);
        const round =
          event.kind.case === 'roundVotingStarted' ||
          event.kind.case === 'votingEnded' ||
          event.kind.case === 'roundResults'
            ? event.kind.value.roundNumber
            : 0;
        if (round === roundNumber) waiter.take(event, receivedAt);
      }
    },
  });
}

/** The tournament goes live, as the tournament service announces it. */
export async function announceLive(
  bus: Bus,
  tournament: { id: string; title: string; startAt: Date; roundTimeSeconds: number },
): Promise<void> {
  const tournamentId = tournament.id;
  const { startAt } = tournament;
  await bus.publish(topics.tournamentLifecycle.name, [
    encodeEvent(
      TournamentLifecycleEventSchema,
      create(TournamentLifecycleEventSchema, {
        tournamentId,
        occurredAt: timestampFromDate(new Date()),
        kind: {
          case: 'live',
          value: {
            tournament: create(TournamentSchema, {
              id: tournamentId,
              title: tournament.title,
              status: TournamentStatus.LIVE,
              startAt: timestampFromDate(startAt),
              roundTimeSeconds: tournament.roundTimeSeconds,
            }),
          },
        },
      }),
      { key: tournamentId, id: `${tournamentId}:live` },
    ),
  ]);
}
