import { randomUUID } from 'node:crypto';
import { GameEventSchema, toJson, type GameEvent } from '@underdog/proto';
import { actors } from '@underdog/test-support';
import { drawOrder } from '../../packages/fair-play/src/draw';
import { verifyDrawCommand } from '../../packages/fair-play/src/verify-draw-command';
import {
  publishRoundOneVotes,
  publishTournamentNews,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  verified,
  waitFor,
} from '../../services/game-engine/test/support';

/** tools/verify-draw.ts over these JSON lines: its exit code and what it printed. */
function verify(jsonl: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = verifyDrawCommand(['events.jsonl'], {
    readInput: () => jsonl,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

/**
 * Issue 28, acceptance 3: a game played by the engine and decided by the draw; the script
 * recomputes its winner from the game's published events alone (GameStarted's commitment,
 * GameEnded's revealed seed and candidates), and reports a tampered seed or winner.
 */
describe('tools/verify-draw on a game the engine played', () => {
  it('recomputes the winner of a game decided by the draw from its events, and reports a tampered seed', async () => {
    const infra = await startInfrastructure();
    const { bus } = infra.infrastructure;
    const engine = await startEngine(infra.infrastructure, 'engine-draw');
    const recorder = await recordGameEvents(bus, 'draw-recorder');
    try {
      const tournamentId = randomUUID();
      const players = ['ann', 'bob', 'cyd'];
      await publishTournamentNews(bus, tournamentId, 'created', 1);
      await waitFor(async () => (await engine.app.live.state(tournamentId)) !== undefined, 'made');
      for (const user of players) await engine.app.players.join(verified(user), tournamentId);
      // A game of one round (the engine's `live` handling finds it made and runs it), so its
      // end is the draw after round 1 without playing 17 rounds.
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
      // Everyone on image 0: all three survive the last round, the draw decides.
      await publishRoundOneVotes(bus, tournamentId, gameId, [
        ['ann', 0],
        ['bob', 0],
        ['cyd', 0],
      ]);
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'gameEnded'),
        'game_ended',
        20_000,
      );
      const events: GameEvent[] = recorder.events.filter((event) => event.gameId === gameId);
      const ended = events.find((event) => event.kind.case === 'gameEnded')!.kind.value as {
        decidedBy: string;
        winnerUserId: string;
        drawSeed: string;
        drawCandidateUserIds: string[];
        drawOrderUserIds: string[];
      };
      expect(ended.decidedBy).toBe('draw');
      // The prize's whole order is fixed and published at the reveal (issue 37).
      expect(ended.drawOrderUserIds).toEqual(drawOrder(ended.drawSeed, ['ann', 'bob', 'cyd']));
      expect(ended.drawOrderUserIds[0]).toBe(ended.winnerUserId);
      expect(ended.drawSeed).toMatch(/^[0-9a-f]{64}$/);
      expect(ended.drawCandidateUserIds).toEqual(['ann', 'bob', 'cyd']);

      // The events as anyone reading game.events would have them: protobuf JSON, one a line.
      const lines = events.map((event) => JSON.stringify(toJson(GameEventSchema, event)));
      const good = verify(lines.join('\n'));
      expect(good.err).toEqual([]);
      expect(good.out).toContain('commitment        holds');
      expect(good.out).toContain(`recomputed winner ${ended.winnerUserId}`);
      expect(good.out).toContain('candidates        3 (sorted: ann, bob, cyd)');
      expect(good.out).toContain('order             holds');
      expect(good.code).toBe(0);

      // A seed other than the committed one (e.g. chosen after the votes) is reported.
      const tampered = lines.map((line) => {
        const json = JSON.parse(line) as { gameEnded?: { drawSeed: string } };
        if (json.gameEnded) json.gameEnded.drawSeed = 'f'.repeat(64);
        return JSON.stringify(json);
      });
      const bad = verify(tampered.join('\n'));
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('problem: SHA-256 of the revealed seed is not the committed hash');
      expect(bad.out.at(-1)).toBe('NOT VERIFIED');

      // So is a published winner the seed does not give.
      const other = ['ann', 'bob', 'cyd'].find((user) => user !== ended.winnerUserId)!;
      const wrongWinner = lines.map((line) => {
        const json = JSON.parse(line) as { gameEnded?: { winnerUserId: string } };
        if (json.gameEnded) json.gameEnded.winnerUserId = other;
        return JSON.stringify(json);
      });
      expect(verify(wrongWinner.join('\n')).code).toBe(1);

      // Issue 37: the winner disqualified after the game; the prize goes to the second in the
      // published order, and the script checks that replacement from the events alone.
      const [first, second] = ended.drawOrderUserIds as [string, string];
      await engine.app.disqualifications.disqualify(actors.admin(), {
        tournamentId,
        userId: first,
        reason: 'ring',
      });
      await waitFor(
        () => recorder.events.some((event) => event.kind.case === 'participantDisqualified'),
        'the after-game disqualification',
      );
      const after = recorder.events
        .filter((event) => event.gameId === gameId)
        .map((event) => JSON.stringify(toJson(GameEventSchema, event)));
      const replaced = verify(after.join('\n'));
      expect(replaced.err).toEqual([]);
      expect(replaced.out).toContain(
        `after the game    ${first} disqualified: winner ${second}, next eligible ${second}`,
      );
      expect(replaced.code).toBe(0);
      // A replacement the order does not give (a re-draw, an admin's pick) is reported.
      const third = ended.drawOrderUserIds[2]!;
      const steered = after.map((line) => {
        const json = JSON.parse(line) as { participantDisqualified?: { winnerUserId: string } };
        if (json.participantDisqualified) json.participantDisqualified.winnerUserId = third;
        return JSON.stringify(json);
      });
      const caught = verify(steered.join('\n'));
      expect(caught.code).toBe(1);
      expect(caught.err).toContain(
        `problem: ${first} disqualified after the game: the published winner ${third} is not the next eligible in the order, ${second}`,
      );
      // So is an order that is not the seed's.
      const reordered = after.map((line) => {
        const json = JSON.parse(line) as { gameEnded?: { drawOrderUserIds: string[] } };
        if (json.gameEnded) json.gameEnded.drawOrderUserIds = [first, third, second];
        return JSON.stringify(json);
      });
      expect(verify(reordered.join('\n')).err).toContain(
        'problem: the published order is not the order the seed gives',
      );
    } finally {
      await recorder.stop();
      await engine.group.stop();
      await infra.stop();
    }
  }, 30_000);
});
