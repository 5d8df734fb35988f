import { ComponentGroup } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  GameEventSchema,
  TournamentStatus,
  create,
  encodeEvent,
  type MessageInitShape,
} from '@underdog/proto';
import {
  HOUR,
  MINUTE,
  actors,
  inFuture,
  logger,
  startHarness,
  timestampAt,
  waitFor,
  type Harness,
} from './support';
import { FairPlayRepository } from '../src/adapters/fair-play-repository';

const FINISHED = 'underdog.events.v1.TournamentFinished';

type GameEventKind = MessageInitShape<typeof GameEventSchema>['kind'];

describe('the game.events consumer', () => {
  let h: Harness;
  let tournamentId: string;
  let startAt: Date;

  beforeEach(async () => {
    h = await startHarness();
    startAt = inFuture(h.clock, HOUR);
    const { tournament } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Friday night',
      startAt: timestampAt(startAt),
    });
    tournamentId = tournament!.id;
    // Only the consumer runs: the scheduler is driven by hand, as in scheduler.test.ts.
    const consumer = h.module.components.find((c) => c.name === 'game-events-consumer');
    if (!consumer) throw new Error('the service has no game-events-consumer component');
    const group = new ComponentGroup(logger, [consumer]);
    await group.start();
    stopConsumer = () => group.stop();
  });
  let stopConsumer: () => Promise<void>;
  afterEach(async () => {
    await stopConsumer();
    await h.stop();
  });

  const tournament = async () => (await h.client.getTournament({ id: tournamentId })).tournament!;
  const finishedEvents = () =>
    h.events.filter((e) => e.key === tournamentId && e.type === FINISHED);
  let markers = 0;
  /**
   * Proves every event published so far was handled, without sleeping: publishes a marker (a
   * round start, on the same key, so the same partition, consumed in order) that touches no
   * tournament, and waits for its effect. Whatever the earlier events did is done by then.
   */
  async function handledSoFar() {
    const roundNumber = 1_000 + ++markers;
    await publish(
      { case: 'roundVotingStarted', value: { roundNumber, images: [] } },
      `marker:${roundNumber}`,
    );
    const rounds = new FairPlayRepository(h.infrastructure.documents);
    await waitFor(
      async () =>
        (await rounds.roundsOf(tournamentId)).some((round) => round.roundNumber === roundNumber),
      'the marker event',
    );
  }

  /** Publishes one game event, with the engine's deterministic event id. */
  async function publish(kind: GameEventKind, id: string) {
    const event = create(GameEventSchema, { tournamentId, gameId: `game-${tournamentId}`, kind });
    await h.infrastructure.bus.publish(topics.gameEvents.name, [
      encodeEvent(GameEventSchema, event, { key: tournamentId, id }),
    ]);
  }

  async function goLive() {
    h.clock.set(startAt);
    await h.module.scheduler.startDueTournaments();
    expect((await tournament()).status).toBe(TournamentStatus.LIVE);
    h.clock.advance(10 * MINUTE);
  }

  it('turns the tournament finished on GameEnded, once, with one TournamentFinished even when redelivered', async () => {
    await goLive();
    const ended: GameEventKind = {
      case: 'gameEnded',
      value: { winnerUserId: 'u1', roundsPlayed: 5, decidedBy: 'last_standing' },
    };
    await publish(ended, 'game:gameEnded:end');
    await waitFor(
      async () => (await tournament()).status === TournamentStatus.FINISHED,
      'the tournament to finish',
    );
    const finishedAt = (await h.module.tournaments.get(tournamentId)).updatedAt;

    h.clock.advance(MINUTE);
    await publish(ended, 'game:gameEnded:end');
    await waitFor(() => finishedEvents().length >= 1, 'the finished event');
    await handledSoFar();

    expect(finishedEvents()).toHaveLength(1);
    expect(finishedEvents()[0]!.id).toBe(`${tournamentId}:finished`);
    const after = await tournament();
    expect(after.status).toBe(TournamentStatus.FINISHED);
    expect((await h.module.tournaments.get(tournamentId)).updatedAt).toEqual(finishedAt);
  });

  it('sets participantCount from GameStarted, and a repeat changes nothing', async () => {
    await goLive();
    const started: GameEventKind = {
      case: 'gameStarted',
      value: { participantCount: 42, offlineParticipantCount: 3, totalRounds: 17 },
    };
    await publish(started, 'game:gameStarted:start');
    await waitFor(
      async () => (await tournament()).participantCount === 42,
      'the participant count',
    );
    const countedAt = (await h.module.tournaments.get(tournamentId)).updatedAt;

    h.clock.advance(MINUTE);
    await publish(started, 'game:gameStarted:start');
    await handledSoFar();
    const after = await tournament();
    expect(after.participantCount).toBe(42);
    expect((await h.module.tournaments.get(tournamentId)).updatedAt).toEqual(countedAt);
    expect(after.status).toBe(TournamentStatus.LIVE);
  });

  it('counts live joins before the game starts, keeping the largest count when they arrive out of order', async () => {
    const joined = (userId: string, participantCount: number): GameEventKind => ({
      case: 'participantJoined',
      value: { userId, participantCount },
    });
    await publish(joined('u1', 1), `${tournamentId}:participantJoined:u1`);
    await waitFor(async () => (await tournament()).participantCount === 1, 'the first join');
    // u3's count overtakes u2's (joins on two engine replicas): u2's late count changes nothing.
    await publish(joined('u3', 3), `${tournamentId}:participantJoined:u3`);
    await publish(joined('u2', 2), `${tournamentId}:participantJoined:u2`);
    await publish({ case: 'votingEnded', value: { roundNumber: 1 } }, 'game:votingEnded:marker');
    await waitFor(async () => (await tournament()).participantCount === 3, 'the third join');
    await handledSoFar();
    expect(await tournament()).toMatchObject({
      participantCount: 3,
      status: TournamentStatus.UPCOMING,
    });
    // The game's start counts everyone again; a repeat of a join changes nothing.
    await goLive();
    await publish(
      { case: 'gameStarted', value: { participantCount: 4, totalRounds: 17 } },
      'game:gameStarted:start',
    );
    await publish(joined('u3', 3), `${tournamentId}:participantJoined:u3`);
    await waitFor(async () => (await tournament()).participantCount === 4, 'the start');
    await handledSoFar();
    expect((await tournament()).participantCount).toBe(4);
  });

  it('does not finish a tournament that is not live, and ignores the other kinds', async () => {
    await publish({ case: 'votingEnded', value: { roundNumber: 1 } }, 'game:votingEnded:1');
    await publish(
      { case: 'gameEnded', value: { roundsPlayed: 0, decidedBy: 'no_winner' } },
      'game:gameEnded:end',
    );
    await handledSoFar();
    expect((await tournament()).status).toBe(TournamentStatus.UPCOMING);
    expect(finishedEvents()).toHaveLength(0);
  });
});
