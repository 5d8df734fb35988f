import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { createSchema } from '../src/graphql/schema';
import { gameEventMessages } from '../src/realtime/messages';
import { toGameEventView, type GameEventView } from '../src/realtime/views';
import { gameEvent, t0, wholeGame } from './game-events';

/**
 * The real-time wire formats, byte for byte: the printed GraphQL schema and the `/ws` messages of
 * every game event case (with and without a winner, an ad, a disqualification during and after the
 * game). The fixtures were written before the game events got one description each
 * (`gateway/src/realtime/game-events.ts`); a change to a message or a type fails here. Change
 * the fixture only with the spec (the web app and k6 read these strings).
 */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

const views = (): GameEventView[] => {
  const events = [
    ...wholeGame('t-1'),
    gameEvent(
      't-1',
      {
        case: 'advertisementStarted',
        value: {
          position: 'between_rounds',
          advertisement: {
            id: 'ad-1',
            title: 'Buy images',
            content: 'Many',
            displayPosition: 'between_rounds',
            isActive: true,
            duration: 5,
          },
          durationSeconds: 5,
          afterRoundNumber: 1,
        },
      },
      20,
    ),
    gameEvent('t-1', { case: 'gameEnded', value: { roundsPlayed: 3, decidedBy: 'no_winner' } }, 30),
    gameEvent(
      't-1',
      {
        case: 'gameEnded',
        value: {
          winnerUserId: 'user-b',
          winnerUsername: 'bob',
          roundsPlayed: 2,
          decidedBy: 'draw',
        },
      },
      30,
    ),
    gameEvent(
      't-1',
      {
        case: 'participantDisqualified',
        value: {
          userId: 'user-a',
          username: 'ann',
          reason: 'Bot',
          roundNumber: 2,
          afterGame: false,
        },
      },
      12,
    ),
    gameEvent(
      't-1',
      {
        case: 'participantDisqualified',
        value: {
          userId: 'user-a',
          username: 'ann',
          reason: 'Bot',
          roundNumber: 0,
          afterGame: true,
          winnerUserId: 'user-b',
        },
      },
      40,
    ),
    gameEvent(
      't-1',
      { case: 'participantJoined', value: { userId: 'user-c', participantCount: 3 } },
      1,
    ),
  ];
  return events.flatMap((event) => {
    const view = toGameEventView(event, new Date(t0.getTime() + 6_500));
    return view ? [view] : [];
  });
};

describe('the real-time wire formats', () => {
  it('prints every GraphQL type as before (a new game event only adds its own)', () => {
    const blocks = (sdl: string) => new Set(sdl.trim().split(/\n\n(?=\S)/));
    const printed = blocks(printSchema(createSchema()));
    const missing = [...blocks(fixture('schema.printed.txt'))].filter((type) => !printed.has(type));
    expect(missing).toEqual([]);
  });

  it('sends the same /ws messages for every game event case', () => {
    const lines = views()
      .flatMap(gameEventMessages)
      .map((message) => JSON.stringify(message));
    expect(lines.join('\n') + '\n').toBe(fixture('ws-game-events.jsonl'));
  });

  it('yields the same gameEvents views (the GraphQL payloads)', () => {
    const lines = views().map((view) => JSON.stringify(view));
    expect(lines.join('\n') + '\n').toBe(fixture('game-event-views.jsonl'));
  });
});
