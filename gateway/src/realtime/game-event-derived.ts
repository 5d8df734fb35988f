/**
 * What is derived from the game events' descriptions (`gameEvents` in game-events.ts): the view
 * of a proto case, the `/ws` messages of a view and their types, the GraphQL types implementing
 * `GameEvent`, and the sample views the docs print.
 */
import type { GameEvent } from '@underdog/proto';
import type { AnyGameEventDescription, GameEventBase } from './game-event-kit';
import { gameEvents, type GameEventMessage, type GameEventView } from './game-events';

/** `gameEvents`, read as plain descriptions. */
export const gameEventDescriptions: readonly AnyGameEventDescription[] = gameEvents;

const byName = new Map(gameEventDescriptions.map((description) => [description.name, description]));
const byProtoCase = new Map<string, AnyGameEventDescription>(
  gameEventDescriptions.map((description) => [
    description.name[0]!.toLowerCase() + description.name.slice(1),
    description,
  ]),
);

/**
 * The view of a proto `GameEvent.kind` case, or null for a case clients are not sent
 * (`participantJoined`: the tournament's count follows it) and one this gateway does not know.
 */
export function gameEventViewOf(
  base: GameEventBase,
  kind: GameEvent['kind'],
  now: Date,
): GameEventView | null {
  const description = kind.case === undefined ? undefined : byProtoCase.get(kind.case);
  if (!description) return null;
  return {
    ...base,
    type: description.name,
    ...description.fromProto(kind.value as never, now),
  } as GameEventView;
}

/** The `/ws` messages one game event becomes, in the order they are sent. */
export function gameEventMessages(view: GameEventView): GameEventMessage[] {
  const description = byName.get(view.type);
  if (!description) return [];
  return description.ws.map((ws) => ws.build(view as never) as GameEventMessage);
}

/** The `/ws` message types of the game events, in the order of `gameEvents`. */
export const gameEventMessageTypes = gameEventDescriptions.flatMap((description) =>
  description.ws.map((ws) => ws.type as GameEventMessage['type']),
);

const quoted = (description: string | undefined, indent: string) =>
  description === undefined ? '' : `${indent}${JSON.stringify(description)}\n`;

/** The GraphQL types implementing `GameEvent`, one per description (SDL). */
export function gameEventTypeDefs(): string {
  return gameEventDescriptions
    .map((description) => {
      const fields = Object.entries(description.fields)
        .filter(([, field]) => field.graphql !== undefined)
        .map(
          ([name, field]) => `${quoted(field.description, '    ')}    ${name}: ${field.graphql}\n`,
        )
        .join('');
      return (
        quoted(description.description, '  ') +
        `  type ${description.name} implements GameEvent {\n` +
        '    tournamentId: ID!\n    gameId: ID!\n    occurredAt: String!\n' +
        fields +
        '  }\n'
      );
    })
    .join('\n');
}

/** A view of each description with every field set (`sample`) or nulled (`empty`), for docs. */
export function sampleViews(which: 'sample' | 'empty'): GameEventView[] {
  return gameEventDescriptions.map(
    (description) =>
      ({
        tournamentId: '',
        gameId: '',
        occurredAt: '',
        type: description.name,
        ...Object.fromEntries(
          Object.entries(description.fields).map(([name, field]) => [name, field[which]]),
        ),
      }) as GameEventView,
  );
}
