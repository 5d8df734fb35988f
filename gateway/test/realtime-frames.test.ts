import { createLogger, createMetricsRegistry } from '@underdog/kit';
import { Subscriber } from '../src/realtime/core/channels';
import { RealtimeCore } from '../src/realtime/core/realtime-core';
import { sampleViews } from '../src/realtime/game-event-derived';
import { RealtimeMetrics } from '../src/realtime/metrics';
import { defaultRealtimeLimits, type RealtimeLimits } from '../src/realtime/ports';
import type { GameEventView } from '../src/realtime/views';
import { WsGameChannel, wsGameChannelKey } from '../src/realtime/ws-channels';
import { FakeSocket } from './realtime-core-support';

/**
 * Frames and writes per socket per round (issue 36): a 15-second round as the engine publishes
 * it (voting opens, a live total each second, the close, the results, the round's end and the
 * advertisement right after it) through the real-time core to `/ws` sockets.
 */
const logger = createLogger({ service: 'test', level: 'silent' });
const tournamentId = 't-frames';

const samples = new Map(sampleViews('sample').map((view) => [view.type, view]));
const event = (type: GameEventView['type'], fields: Record<string, unknown> = {}) =>
  ({ ...samples.get(type)!, tournamentId, ...fields }) as GameEventView;

describe('frames per socket per round', () => {
  let core: RealtimeCore;
  afterEach(() => {
    core.close();
    jest.useRealTimers();
  });

  /** Plays one round to `audience` sockets; the first socket's writes and messages. */
  async function playRound(audience: number, limits: Partial<RealtimeLimits> = {}) {
    jest.useFakeTimers({ now: 1_000_000 });
    core = new RealtimeCore({
      logger,
      limits: { ...defaultRealtimeLimits, voteTotalSpreadMs: 0, ...limits },
      metrics: new RealtimeMetrics(createMetricsRegistry('test')),
    });
    const channel = new WsGameChannel(tournamentId);
    const sockets = Array.from({ length: audience }, () => new FakeSocket());
    for (const socket of sockets) {
      const subscriber = new Subscriber(
        core.open(socket, 'ws'),
        core.channel(wsGameChannelKey(tournamentId), () => channel),
      );
      core.join(subscriber);
    }
    const at = async (ms: number, view?: GameEventView) => {
      await jest.advanceTimersByTimeAsync(ms);
      if (view) await core.gameEvent(view);
    };
    await at(0, event('RoundVotingStarted', { roundNumber: 1 }));
    // The engine's live total: once a second while the voting is open (14 of a 15 s round).
    for (let second = 1; second <= 14; second += 1) {
      await at(1_000, event('VoteTotal', { roundNumber: 1, totalVotes: second * 100 }));
    }
    await at(1_000, event('VotingEnded', { roundNumber: 1, totalVotes: 1_450 }));
    await at(500, event('RoundResults', { roundNumber: 1 }));
    await at(5_000, event('RoundCompleted', { roundNumber: 1 }));
    await at(10, event('AdvertisementStarted', { afterRoundNumber: 1 }));
    await at(1_000);
    const first = sockets[0]!;
    // Every socket got the same writes (compared as one string each: 1,001 deep compares are slow).
    const wire = (socket: FakeSocket) =>
      socket.written.map((buffer) => buffer.toString('base64')).join(',');
    expect(new Set(sockets.map(wire)).size).toBe(1);
    return {
      writes: first.written.length,
      types: first.texts().map((text) => (JSON.parse(text) as { type: string }).type),
      totals: first
        .texts()
        .map((text) => JSON.parse(text) as { type: string; voteCount?: number })
        .filter((message) => message.type === 'vote_received')
        .map((message) => message.voteCount),
    };
  }

  it('before (no coalescing, no grouping): 19 writes per socket, 14 of them the live total', async () => {
    const round = await playRound(1_001, {
      voteTotalCoalesceAbove: Number.POSITIVE_INFINITY,
      endOfRoundLingerMs: 0,
    });
    expect(round.writes).toBe(19);
    expect(round.totals).toHaveLength(14);
  });

  it('a large audience gets the live total every few seconds, the last one with voting_ended, and the round end in one write', async () => {
    const round = await playRound(1_001);
    // Voting opens (1), totals at 1, 4, 7, 10 and 13 s (5), the close with the last total (1),
    // the results (1), the round's end with the advertisement (1).
    expect(round.writes).toBe(9);
    // The fresh total of each window's end goes (not the one held back a second earlier).
    expect(round.totals).toEqual([100, 400, 700, 1_000, 1_300, 1_400]);
    const closing = round.types.indexOf('voting_ended');
    expect(round.types[closing - 1]).toBe('vote_received');
    expect(round.types.slice(-2)).toEqual(['round_completed', 'advertisement_started']);
    // Every message the uncoalesced round has, in the same order, but the skipped totals.
    expect(round.types.filter((type) => type !== 'vote_received')).toEqual([
      'round_update',
      'round_voting_started',
      'voting_ended',
      'results_started',
      'round_completed',
      'advertisement_started',
    ]);
  });

  it('sends a held-back total once its window (and a short slack) passed when no newer one comes', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    core = new RealtimeCore({
      logger,
      limits: { ...defaultRealtimeLimits, voteTotalSpreadMs: 0, voteTotalCoalesceAbove: 0 },
      metrics: new RealtimeMetrics(createMetricsRegistry('test')),
    });
    const socket = new FakeSocket();
    core.join(
      new Subscriber(
        core.open(socket, 'ws'),
        core.channel(wsGameChannelKey(tournamentId), () => new WsGameChannel(tournamentId)),
      ),
    );
    await core.gameEvent(event('VoteTotal', { roundNumber: 1, totalVotes: 5 }));
    await jest.advanceTimersByTimeAsync(1_000);
    await core.gameEvent(event('VoteTotal', { roundNumber: 1, totalVotes: 7 }));
    await jest.advanceTimersByTimeAsync(2_000);
    expect(socket.written).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(250);
    expect(
      socket.texts().map((text) => (JSON.parse(text) as { voteCount: number }).voteCount),
    ).toEqual([5, 7]);
  });

  it('a small game keeps its total once a second', async () => {
    const round = await playRound(10);
    expect(round.totals).toHaveLength(14);
    // 1 + 14 + 1 + 1 + 1: only the round's end is grouped.
    expect(round.writes).toBe(18);
  });

  it('a round_completed with nothing after it goes alone once the linger passed', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    core = new RealtimeCore({
      logger,
      limits: { ...defaultRealtimeLimits, endOfRoundLingerMs: 50 },
      metrics: new RealtimeMetrics(createMetricsRegistry('test')),
    });
    const socket = new FakeSocket();
    core.join(
      new Subscriber(
        core.open(socket, 'ws'),
        core.channel(wsGameChannelKey(tournamentId), () => new WsGameChannel(tournamentId)),
      ),
    );
    void core.gameEvent(event('RoundCompleted', { roundNumber: 3 }));
    await jest.advanceTimersByTimeAsync(49);
    expect(socket.written).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(socket.texts().map((text) => (JSON.parse(text) as { type: string }).type)).toEqual([
      'round_completed',
    ]);
  });
});
