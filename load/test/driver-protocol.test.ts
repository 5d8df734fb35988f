import { appOperations } from '../driver/app-operations';
import { driverProtocol } from '../driver/driver-contract';
import { eventTypeOf, graphqlErrorCode } from '../driver/player-messages';

describe("the driver's protocol option", () => {
  it("plays the web app's transport by default, the legacy /ws on request, nothing else", () => {
    expect(driverProtocol(undefined)).toBe('graphql-ws');
    expect(driverProtocol('graphql-ws')).toBe('graphql-ws');
    expect(driverProtocol('ws')).toBe('ws');
    expect(() => driverProtocol('sse')).toThrow('--protocol: graphql-ws or ws');
  });

  it("sends the app's operations as Apollo prints them, with the cache's __typename", () => {
    const operations = appOperations();

    expect(operations.castVote.operationName).toBe('CastVote');
    expect(operations.castVote.query).toMatch(/^mutation CastVote\(/);
    expect(operations.castVote.query).toContain('__typename');
    expect(operations.gameEvents.query).toMatch(/^subscription GameEvents\(/);
    expect(operations.gameEvents.query).toContain('fragment LiveGameFields on LiveGame');
    expect(operations.liveGame.query).toMatch(/^query LiveGame\(/);
    expect(operations.joinTournament.query).toMatch(/^mutation JoinTournament\(/);
  });

  it('reads an event type and a refusal code from graphql-ws frames', () => {
    const next = JSON.stringify({
      id: 'a1',
      type: 'next',
      payload: { data: { gameEvents: { __typename: 'RoundResults', roundNumber: 1 } } },
    });
    expect(eventTypeOf(next)).toBe('RoundResults');
    const refused = JSON.stringify({
      id: 'v1',
      type: 'next',
      payload: { data: null, errors: [{ message: 'x', extensions: { code: 'ALREADY_VOTED' } }] },
    });
    expect(graphqlErrorCode(refused)).toBe('ALREADY_VOTED');
    const error = JSON.stringify({ id: 'v1', type: 'error', payload: [{ message: 'bad' }] });
    expect(graphqlErrorCode(error)).toBe('UNKNOWN_ERROR');
  });
});
