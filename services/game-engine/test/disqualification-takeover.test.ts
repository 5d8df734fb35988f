import { createHash, randomUUID } from 'node:crypto';
import type { GameEvent } from '@underdog/proto';
import { actors } from '@underdog/test-support';
import {
  publishRoundOneVotes,
  publishTournamentNews,
  recordGameEvents,
  advancedFrom,
  startEngine,
  startInfrastructure,
  verified,
  waitFor,
} from './support';

/**
 * A disqualification and the draw's seed are kept in the live store with the rest of the game:
 * the replica that takes the game over (its owner stopped mid-round) applies the mark at the
 * round's end and reveals the seed the first replica committed to.
 */
describe('a game taken over by the other replica', () => {
  it('applies a disqualification made before the take-over and reveals the committed seed', async () => {
    const infra = await startInfrastructure();
    const { bus } = infra.infrastructure;
    const a = await startEngine(infra.infrastructure, 'engine-a');
    const b = await startEngine(infra.infrastructure, 'engine-b');
    const recorder = await recordGameEvents(bus, 'dq-takeover-recorder');
    const stopped = new Set<string>();
    const eventsOf = <C extends NonNullable<GameEvent['kind']['case']>>(kind: C) =>
      recorder.events
        .filter((event) => event.kind.case === kind)
        .map((event) => event.kind.value as Extract<GameEvent['kind'], { case: C }>['value']);
    try {
      const tournamentId = randomUUID();
      await publishTournamentNews(bus, tournamentId, 'created', 3);
      await waitFor(async () => (await a.app.live.state(tournamentId)) !== undefined, 'made');
      for (const user of ['ann', 'bob', 'cyd', 'dan']) {
        await a.app.players.join(verified(user), tournamentId);
      }
      await publishTournamentNews(bus, tournamentId, 'live', 3);
      await waitFor(() => eventsOf('roundVotingStarted').length > 0, 'round 1');
      const gameId = recorder.events.find((event) => event.kind.case === 'gameStarted')!.gameId;
      const owner = a.app.runners.runningHere().includes(tournamentId) ? a : b;
      const other = owner === a ? b : a;

      await expect(
        other.app.disqualifications.disqualify(actors.admin(), {
          tournamentId,
          userId: 'dan',
          reason: 'ring',
        }),
      ).resolves.toMatchObject({ duringGame: true, effectiveRound: 1 });
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 0],
        ['cyd', 1],
        ['dan', 2],
      ]);
      // The owner stops mid-round; the other replica takes the game over.
      stopped.add(owner === a ? 'a' : 'b');
      await owner.group.stop();
      await waitFor(() => eventsOf('gameEnded').length > 0, 'game_ended', 20_000);
      await expect(advancedFrom(other.app.live, tournamentId, 1)).resolves.toEqual(['cyd']);
      expect(eventsOf('participantDisqualified')).toEqual([
        expect.objectContaining({ userId: 'dan', roundNumber: 1 }),
      ]);
      const ended = eventsOf('gameEnded')[0]!;
      expect(ended.winnerUserId).toBe('cyd');
      const committed = eventsOf('gameStarted')[0]!.drawSeedSha256;
      expect(createHash('sha256').update(ended.drawSeed).digest('hex')).toBe(committed);
    } finally {
      await recorder.stop();
      if (!stopped.has('a')) await a.group.stop();
      if (!stopped.has('b')) await b.group.stop();
      await infra.stop();
    }
  }, 30_000);
});
