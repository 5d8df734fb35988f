import type { GameState } from '@underdog/live-game';
import { drawSeedCommitment, newDrawSeed } from '../../domain/resolution';
import { adFields, gameStartedRecord } from '../game-facts';
import { emitAdvertisement } from './after-results';
import type { Step, StepContext } from './context';
import { openRound, roundFields } from './open-round';

/** waiting → the before-game advertisement or round 1; the game announced. */
export async function begin(game: StepContext, state: GameState, now: number): Promise<Step> {
  const { ads, live, records } = game.deps;
  const ad = ads.pick('before_game');
  // The draw's seed, fixed before any vote, stored with the step (it survives a take-over and a
  // failover like the rest of the state) with its commitment, which is public from now on (the
  // live snapshot, GameStarted, the records); the seed is checked against it at the reveal
  // (issues 28 and 37).
  const drawSeed = state.drawSeed || newDrawSeed();
  const drawCommitment = state.drawCommitment || drawSeedCommitment(drawSeed);
  const moved = await game.advance(
    { phase: 'waiting', round: 0 },
    {
      ...(ad ? adFields(ad, 'before_game', now) : roundFields(state, 1, now)),
      drawSeed,
      drawCommitment,
    },
  );
  if (!moved) return 0;
  await game.announce(
    ad ? { phase: 'advertisement', round: 0 } : { phase: 'voting', round: 1 },
    async () => {
      const participants = await live.participants(game.tournamentId);
      const offline = participants.filter((p) => p.offlineChoices !== undefined).length;
      await game.emit(
        state,
        {
          case: 'gameStarted',
          value: {
            participantCount: participants.length,
            offlineParticipantCount: offline,
            totalRounds: state.totalRounds,
            roundTimeSeconds: state.roundTimeSeconds,
            drawSeedSha256: drawCommitment,
          },
        },
        '0',
      );
      // Every participant's document (10,000 inserts in a large game) is written once round 1's
      // results are out: at the start they took the CPU the first seconds of votes needed, and
      // at the close of voting the CPU the tally and the results needed — with two games closing
      // together, one's results waited for both games' inserts (docs/benchmarks.md). The game's
      // end rewrites whatever is missing.
      game.records.holdStart((eliminatedInRound1) => {
        // Round 1's eliminated go in eliminated: no update of their documents one by one
        // afterwards (on FerretDB each is a locked write that scans the collection).
        const out = new Set(eliminatedInRound1);
        const known = participants.map((participant) =>
          out.has(participant.userId) ? { ...participant, eliminatedInRound: 1 } : participant,
        );
        return records.gameStarted(
          gameStartedRecord(game.tournamentId, { ...state, drawCommitment }, known, now),
        );
      });
      game.log.info({ gameId: state.gameId, participants: participants.length }, 'game started');
      if (ad) await emitAdvertisement(game, state, ad, 'before_game', 0, now);
      else await openRound(game, state, 1, now);
    },
  );
  return 0;
}
