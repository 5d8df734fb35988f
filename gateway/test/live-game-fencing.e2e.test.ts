import { randomUUID } from 'node:crypto';
import { isAppError } from '@underdog/kit';
import { allSlotKeys, gameKeys, voteSlotsFrom } from '@underdog/live-game';
import { TournamentStatus, timestampDate } from '@underdog/proto';
import {
  expectedTally,
  gamesOn,
  liveGameInfrastructure,
  logLines,
  metricValue,
  playerOrigin,
  publishLifecycle,
  recordGameEvents,
  startService,
  stepIdsByRound,
  stopServices,
  tournamentMessage,
  waitFor,
  type LiveGameInfrastructure,
  type Player,
  type ServiceProcess,
  type TournamentFixture,
} from './live-game-processes';

/**
 * Issue 9, acceptance 3 (fencing): the engine process running a game (its lease holder) is frozen
 * with SIGSTOP during round 2's voting. The other process takes the game over and continues on
 * the original deadlines; when the frozen one is resumed (SIGCONT) a round later, its lease and
 * its writes are refused: no round repeated or skipped, every tally as the players' votes made it,
 * and the woken process says so in its log and its `underdog_game_fenced_total`.
 *
 * Every round but the last ties all four images (the voters spread evenly), so all 40 players go
 * on and the game lasts until round 4, where one player alone picks the least popular image.
 */
describe('a frozen game owner cannot write once another engine took the game over', () => {
  const engines: ServiceProcess[] = [];
  let setup: LiveGameInfrastructure;

  beforeAll(async () => {
    setup = await liveGameInfrastructure();
    for (const name of ['engine-a', 'engine-b']) {
      engines.push(
        await startService('game-engine', name, { ...setup.engineEnv, INSTANCE_ID: name }),
      );
    }
  }, 240_000);

  afterAll(async () => {
    await stopServices(engines);
    await setup?.stop();
  });

  it('continues the game on the other engine at the original deadlines and refuses the woken owner', async () => {
    const { infrastructure } = setup;
    const { store } = infrastructure;
    const fixture: TournamentFixture = {
      id: randomUUID(),
      title: 'Fencing cup',
      prize: '$10',
      startAt: new Date(),
      roundTimeSeconds: 8,
    };
    const tournamentId = fixture.id;
    const keys = gameKeys(tournamentId);
    const events = await recordGameEvents(infrastructure, tournamentId);
    const players: Player[] = Array.from({ length: 40 }, (_, i) => ({
      id: `fencing-${i}-${tournamentId.slice(0, 8)}`,
      username: `fencing-${i}`,
    }));
    // The gateway asks both engines in turn for joins, so neither is needed in particular.
    const games = gamesOn(infrastructure, engines[0]!);
    const gamesB = gamesOn(infrastructure, engines[1]!);

    await publishLifecycle(
      infrastructure,
      tournamentId,
      {
        case: 'created',
        value: { tournament: tournamentMessage(fixture, TournamentStatus.UPCOMING) },
      },
      `${tournamentId}:created`,
    );
    await waitFor(
      async () =>
        games
          .join(playerOrigin(players[0]!), tournamentId)
          .then(() => true)
          .catch(() => false),
      'the engine to know the tournament',
    );
    await Promise.all(
      players.map((player, i) => (i % 2 ? gamesB : games).join(playerOrigin(player), tournamentId)),
    );
    await publishLifecycle(
      infrastructure,
      tournamentId,
      { case: 'live', value: { tournament: tournamentMessage(fixture, TournamentStatus.LIVE) } },
      `${tournamentId}:live`,
    );

    const roundStarted = (round: number) =>
      events.of('roundVotingStarted').find((event) => event.roundNumber === round);
    const results = (round: number) =>
      events.of('roundResults').find((event) => event.roundNumber === round);
    const leaseHolder = async () => {
      const owner = ((await store.get(keys.lease)) ?? '').split('|')[0] ?? '';
      // The lease names its owner by the replica's INSTANCE_ID, which each engine here gets as its name.
      return engines.find((engine) => owner === engine.name);
    };
    const tallies = async (upTo: number) => {
      const all: Record<number, Record<string, string>> = {};
      // The K vote slots' tallies summed (docs/adr/0012; one slot unless UNDERDOG_TEST_VOTE_SLOTS).
      const k = voteSlotsFrom(await store.hGet(keys.state, 'voteSlots'));
      expect(k).toBe(Number(process.env.UNDERDOG_TEST_VOTE_SLOTS ?? 1) || 1);
      const slots = allSlotKeys(tournamentId, k);
      for (let round = 1; round <= upTo; round += 1) {
        const sum: Record<string, string> = {};
        for (const slot of slots) {
          for (const [image, count] of Object.entries(await store.hGetAll(slot.tally(round)))) {
            sum[image] = String(Number(sum[image] ?? 0) + Number(count));
          }
        }
        all[round] = sum;
      }
      return all;
    };

    let frozen: { engine: ServiceProcess; deadline: number; at: number } | undefined;
    let woken: { tallies: Record<number, Record<string, string>>; round: number } | undefined;
    let alive = new Set(players.map((player) => player.id));
    for (let round = 1; round <= 4; round += 1) {
      await waitFor(() => roundStarted(round) !== undefined, `round ${round}`);
      const deadline = timestampDate(roundStarted(round)!.phaseEndsAt!).getTime();
      const voters = players.filter((player) => alive.has(player.id));
      const acks = new Map<string, string>();
      await Promise.all(
        voters.map(async (player, i) => {
          // Rounds 1-3: an even spread, all four images tie and everyone goes on. Round 4: the
          // first player alone picks image 0.
          const pick = round < 4 ? i % 4 : i === 0 ? 0 : 1;
          const imageId = `round-${round}-image-${pick}`;
          try {
            await (i % 2 ? gamesB : games).vote(playerOrigin(player), {
              tournamentId,
              roundNumber: round,
              imageId,
            });
            acks.set(player.id, imageId);
          } catch (error) {
            // An engine frozen mid-call: the vote is not acknowledged, the player saw a failure.
            if (!isAppError(error)) throw error;
          }
        }),
      );
      if (round === 2) {
        const owner = await leaseHolder();
        if (!owner) throw new Error('no engine holds the game');
        owner.child.kill('SIGSTOP');
        frozen = { engine: owner, deadline, at: Date.now() };
      }
      await waitFor(() => results(round) !== undefined, `round ${round} results`);
      const resolved = results(round)!;
      expect(
        Object.fromEntries(resolved.results.map((result) => [result.imageId, result.votes])),
      ).toEqual(expectedTally(round, acks, [], alive));
      // Who goes on follows from each player's pick against the winning images (RoundResults
      // lists no players).
      const winning = new Set(resolved.winningImageIds);
      const advanced = [...alive].filter((userId) => winning.has(acks.get(userId) ?? ''));
      expect(resolved.remainingCount).toBe(advanced.length);
      alive = new Set(advanced);

      if (round === 2) {
        // The other engine took over and closed the round on its original deadline.
        const ended = events.all.find(
          ({ event }) => event.kind.case === 'votingEnded' && event.kind.value.roundNumber === 2,
        )!;
        const late = timestampDate(ended.event.occurredAt!).getTime() - deadline;
        const holder = await leaseHolder();
        process.stdout.write(
          `live-game fencing e2e: ${frozen!.engine.name} frozen ${deadline - frozen!.at} ms before round 2's deadline; ${holder?.name ?? 'nobody'} holds the game; round 2 closed ${late} ms after the deadline\n`,
        );
        expect(holder).toBeDefined();
        expect(holder).not.toBe(frozen!.engine);
        expect(late).toBeLessThanOrEqual(2000);
      }
      if (round === 3) {
        // Resume the frozen owner: its lease and any step of its are refused.
        const before = await tallies(3);
        frozen!.engine.child.kill('SIGCONT');
        await waitFor(
          async () => (await metricValue(frozen!.engine, 'underdog_game_fenced_total')) > 0,
          'the woken engine to be refused',
          20_000,
        );
        const refusals = [
          ...logLines(frozen!.engine, 'another replica holds the game; stepping back'),
          ...logLines(frozen!.engine, 'fenced out: another replica took the game over'),
        ].filter((line) => line.tournamentId === tournamentId);
        process.stdout.write(
          `live-game fencing e2e: the woken ${frozen!.engine.name} logged ${JSON.stringify(refusals.map((line) => line.msg))}\n`,
        );
        expect(refusals.length).toBeGreaterThan(0);
        woken = { tallies: before, round };
        expect(await tallies(3)).toEqual(before);
        expect((await leaseHolder())?.name).not.toBe(frozen!.engine.name);
      }
      if (alive.size <= 1) break;
    }
    await waitFor(() => events.of('gameEnded').length > 0, 'the end');
    await events.stop();

    expect(woken).toBeDefined();
    // The tallies of the rounds played before the wake are what they were.
    expect(await tallies(woken!.round)).toEqual(woken!.tallies);
    // Rounds 1..4, each step of each round once (one event id), none skipped or repeated.
    const rounds = events.of('roundResults').map((event) => event.roundNumber);
    expect(rounds).toEqual([1, 2, 3, 4]);
    for (const [kind, byRound] of stepIdsByRound(events)) {
      expect({ kind, steps: [...byRound].map(([round, ids]) => [round, ids.size]) }).toEqual({
        kind,
        steps: [
          [1, 1],
          [2, 1],
          [3, 1],
          [4, 1],
        ],
      });
    }
    expect(events.of('gameEnded')).toEqual([
      expect.objectContaining({
        decidedBy: 'last_standing',
        winnerUserId: players[0]!.id,
        roundsPlayed: 4,
      }),
    ]);
  }, 300_000);
});
