import { gameEvent, gatewayOnly, int } from '../src/realtime/game-event-kit';
import { gameEventTypeDefs } from '../src/realtime/game-event-derived';
import { gameEvents } from '../src/realtime/game-events';

describe('a game event described once (realtime/game-event-kit.ts)', () => {
  it('becomes, without `ws`, one /ws message named in snake case with the view fields', () => {
    const described = gameEvent('VoteTotal', {
      description: 'The total moved.',
      fields: { roundNumber: int('The round'), voter: gatewayOnly() },
      fromProto: (event) => ({ roundNumber: event.roundNumber, voter: 'user-a' }),
    });
    expect(described.ws.map((message) => [message.type, message.when])).toEqual([
      ['vote_total', 'The total moved.'],
    ]);
    const view = {
      tournamentId: 't-1',
      gameId: 'g-1',
      occurredAt: '2030-01-01T12:00:00.000Z',
      type: 'VoteTotal' as const,
      roundNumber: 3,
      voter: 'user-a',
    };
    expect(JSON.stringify(described.ws[0]!.build(view))).toBe(
      '{"type":"vote_total","tournamentId":"t-1","gameId":"g-1","occurredAt":"2030-01-01T12:00:00.000Z","roundNumber":3,"voter":"user-a"}',
    );
  });

  it('prints a GraphQL type per event with its described fields, never a gateway-only one', () => {
    const sdl = gameEventTypeDefs();
    for (const { name } of gameEvents) {
      expect(sdl).toContain(`type ${name} implements GameEvent {`);
    }
    expect(sdl).toContain('    "The round at whose end they went out; 0 after the game"\n');
    expect(sdl).not.toContain('recipientUserId');
  });
});
