import { createHash, randomUUID } from 'node:crypto';
import { gameKeys } from '@underdog/live-game';
import {
  publishRoundOneVotes,
  publishTournamentNews,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  verified,
  waitFor,
} from './support';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Issue 37, point 5: the seed is checked at the reveal against the commitment stored with it as
 * the game began (and public since). An operator who replaces the seed in the live store does
 * not get a game drawn with it: the game does not end until the committed seed is back.
 */
describe('the draw seed at the reveal', () => {
  it('refuses a seed replaced after the commitment: no end is published until the committed seed is back', async () => {
    const infra = await startInfrastructure();
    const { bus, store } = infra.infrastructure;
    const engine = await startEngine(infra.infrastructure, 'engine-reveal', {
      GAME_RECORDS_DELAY_MS: '0',
    });
    const recorder = await recordGameEvents(bus, 'reveal-recorder');
    try {
      const tournamentId = randomUUID();
      await publishTournamentNews(bus, tournamentId, 'created', 1);
      await waitFor(async () => (await engine.app.live.state(tournamentId)) !== undefined, 'made');
      for (const user of ['ann', 'bob'])
        await engine.app.players.join(verified(user), tournamentId);
      // One round: its end is the reveal.
      const { gameId } = await engine.app.live.createGame(
        tournamentId,
        randomUUID(),
        Date.now(),
        1,
      );
      await publishTournamentNews(bus, tournamentId, 'live', 1);
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'roundVotingStarted'),
        'round 1',
      );
      const state = (await engine.app.live.state(tournamentId))!;
      const started = recorder.events.find((event) => event.kind.case === 'gameStarted')!;
      const committed = (started.kind.value as { drawSeedSha256: string }).drawSeedSha256;
      expect(state.drawCommitment).toBe(committed);
      expect(sha256(state.drawSeed)).toBe(committed);

      // The operator swaps the seed for one of their choosing while round 1 is open.
      const key = gameKeys(tournamentId).state;
      await store.hSet(key, { drawSeed: 'f'.repeat(64) });
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 0],
      ]);
      await waitFor(
        async () => (await engine.app.live.state(tournamentId))?.phase === 'tallying',
        'the tally of round 1',
        20_000,
      );
      // The tally is refused and retried: the game stays in its tally, nothing is revealed. (It
      // would have ended within a second; several retries pass while we wait for one more.)
      const retries = () =>
        engine.app.live.state(tournamentId).then((current) => current?.phase === 'tallying');
      for (let check = 0; check < 5; check += 1) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await retries()).toBe(true);
      }
      expect(recorder.events.some((event) => event.kind.case === 'gameEnded')).toBe(false);

      // The committed seed back: the game ends, revealing it.
      await store.hSet(key, { drawSeed: state.drawSeed });
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'gameEnded'),
        'game_ended',
        20_000,
      );
      const ended = recorder.events.find((event) => event.kind.case === 'gameEnded')!;
      expect((ended.kind.value as { drawSeed: string }).drawSeed).toBe(state.drawSeed);
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 40_000);
});
