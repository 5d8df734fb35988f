import type { EventBus } from '@underdog/bus';
import { topics } from '@underdog/platform';
import {
  GameEventSchema,
  PlayerOutcomeEventSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';

export type GameEventKind = MessageInitShape<typeof GameEventSchema>['kind'];
export type GameOutcomeInit = Extract<
  MessageInitShape<typeof PlayerOutcomeEventSchema>['kind'],
  { case: 'gameOutcome' }
>['value'];

/**
 * Produces `game.events` (key: tournament id) and `player.outcomes` (key: user id). Event ids are
 * deterministic (`<gameId>:<case>:<round>`), so a replica repeating a step after a take-over
 * publishes a repeat consumers recognise.
 */
export class GameEventsPublisher {
  constructor(private readonly bus: EventBus) {}

  async publish(
    context: { tournamentId: string; gameId: string; at: Date },
    kind: GameEventKind,
    idSuffix: string,
  ): Promise<void> {
    const event = create(GameEventSchema, {
      tournamentId: context.tournamentId,
      gameId: context.gameId,
      occurredAt: timestampFromDate(context.at),
      kind,
    });
    await this.bus.publish(topics.gameEvents.name, [
      encodeEvent(GameEventSchema, event, {
        key: context.tournamentId,
        id: `${context.gameId}:${kind?.case ?? 'none'}:${idSuffix}`,
      }),
    ]);
  }

  /**
   * A live join, with the participant count after it (the tournament keeps the largest it has
   * seen). Event id `<tournamentId>:participantJoined:<userId>`: a player joins once.
   */
  async participantJoined(join: {
    tournamentId: string;
    gameId: string;
    userId: string;
    participantCount: number;
    at: Date;
  }): Promise<void> {
    const event = create(GameEventSchema, {
      tournamentId: join.tournamentId,
      gameId: join.gameId,
      occurredAt: timestampFromDate(join.at),
      kind: {
        case: 'participantJoined',
        value: { userId: join.userId, participantCount: join.participantCount },
      },
    });
    await this.bus.publish(topics.gameEvents.name, [
      encodeEvent(GameEventSchema, event, {
        key: join.tournamentId,
        id: `${join.tournamentId}:participantJoined:${join.userId}`,
      }),
    ]);
  }

  /** One outcome per participant, event id `<gameId>:<userId>`. */
  async outcomes(outcomes: Array<{ userId: string } & GameOutcomeInit>): Promise<void> {
    const messages = outcomes.map(({ userId, ...outcome }) =>
      encodeEvent(
        PlayerOutcomeEventSchema,
        create(PlayerOutcomeEventSchema, { userId, kind: { case: 'gameOutcome', value: outcome } }),
        { key: userId, id: `${outcome.gameId}:${userId}` },
      ),
    );
    for (let i = 0; i < messages.length; i += 500) {
      await this.bus.publish(topics.playerOutcomes.name, messages.slice(i, i + 500));
    }
  }
}
