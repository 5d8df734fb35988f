import { randomUUID } from 'node:crypto';
import type { EventBus } from '@underdog/bus';
import { timestampDate } from '@underdog/proto';
import {
  expectCydWonAlone,
  firstEvent,
  gatedGameEvents,
  openTournament,
  publishVotesCydWins,
} from './fault-support';
import {
  publishTournamentNews,
  recordGameEvents,
  startEngine,
  startInfrastructure,
  waitFor,
} from './support';

const ROUND_SECONDS = 4;

/** `bus` refusing every `round_voting_started`, as a bus gone between a step and its announcement. */
const refusingRoundStarts = (bus: EventBus, refused: () => void): EventBus =>
  gatedGameEvents(bus, (kind) => {
    if (kind !== 'roundVotingStarted') return;
    refused();
    throw new Error('the bus is away');
  });

/**
 * Issue 38: a replica that takes a game over announces the round it finds open. The runner
 * before it stored round 1's step and died before `round_voting_started` went out (here its bus
 * refused it and the replica stopped); the players would never have heard of the round, and
 * every one of them would have been out for not voting in it.
 */
describe('a round stored but never announced', () => {
  it('is announced by the replica that takes the game over, with its stored deadline, and plays on', async () => {
    const infra = await startInfrastructure();
    const { bus } = infra.infrastructure;
    let refusals = 0;
    const first = await startEngine(
      { ...infra.infrastructure, bus: refusingRoundStarts(bus, () => (refusals += 1)) },
      'engine-unannounced',
    );
    const recorder = await recordGameEvents(bus, `unannounced-${randomUUID()}`);
    let second: Awaited<ReturnType<typeof startEngine>> | undefined;
    try {
      const tournamentId = randomUUID();
      await openTournament(bus, first, tournamentId, ROUND_SECONDS, ['ann', 'bob', 'cyd']);
      await publishTournamentNews(bus, tournamentId, 'live', ROUND_SECONDS);
      await waitFor(() => refusals > 0, 'round 1 stored, its announcement refused');
      await first.group.stop();
      expect(firstEvent(recorder, 'roundVotingStarted')).toBeUndefined();

      second = await startEngine(infra.infrastructure, 'engine-takeover');
      await waitFor(
        () => firstEvent(recorder, 'roundVotingStarted') !== undefined,
        'round 1 announced by the replica that took the game over',
      );
      const opened = firstEvent(recorder, 'roundVotingStarted')!;
      const announced = opened.kind.value as {
        roundNumber: number;
        phaseEndsAt?: Parameters<typeof timestampDate>[0];
      };
      const stored = await second.app.live.state(tournamentId);
      expect({
        round: announced.roundNumber,
        deadline: timestampDate(announced.phaseEndsAt!).getTime(),
      }).toEqual({ round: 1, deadline: stored?.votingEndsAt });

      const gameId = firstEvent(recorder, 'gameStarted')!.gameId;
      await publishVotesCydWins(bus, tournamentId, gameId);
      await waitFor(() => firstEvent(recorder, 'gameEnded') !== undefined, 'the end', 20_000);
      expectCydWonAlone(recorder);
      // Announced once: the replica that opened it never got it out.
      expect(
        recorder.events.filter((event) => event.kind.case === 'roundVotingStarted'),
      ).toHaveLength(1);
    } finally {
      await second?.group.stop();
      await recorder.stop();
      await infra.stop();
    }
  }, 30_000);
});
