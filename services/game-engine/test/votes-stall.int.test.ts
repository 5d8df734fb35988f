import { randomUUID } from 'node:crypto';
import { createKafkaBus, type EventBus, type KafkaBus, type SubscribeOptions } from '@underdog/bus';
import { testInfra } from '@underdog/harness';
import { allTopics, topics } from '@underdog/platform';
import { timestampDate, type GameEvent } from '@underdog/proto';
import { VOTING_GRACE_MS } from '@underdog/rules';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { startEngineOnStore, openTournament, type EngineOnStore } from './fault-support';
import { publishRoundOneVotes, publishTournamentNews, silentLogger, waitFor } from './support';

/** The votes consumer's group session of the chart (`charts/underdog/values.yaml`). */
const CHART_SESSION_TIMEOUT_MS = 10_000;
const CHART_HEARTBEAT_MS = 2_000;
/** How long the votes consumer is held back, from 1.5 s before round 1's deadline. */
const STALL_MS = 15_000;
const STALL_BEFORE_DEADLINE_MS = 1_500;
/** Long enough that the stall starts well inside round 1 on a loaded machine. */
const ROUND_SECONDS = 6;

/**
 * The bus with the engine's votes consumer that the test can stall: while stalled, every batch
 * it is handed waits (its heartbeats go on, as a consumer busy with a slow batch does). With
 * `reads` the close's own reads of the partition (`readRange`) wait too: every path a vote can
 * take to the tally is held. Only the
 * test's own tournament's lifecycle news reach the engine: the shared broker carries other test
 * files' tournaments, which this engine, on a Redis prefix of its own, has no business running.
 */
function stallableBus(bus: KafkaBus, tournamentIds: readonly string[]) {
  let release: (() => void) | undefined;
  let stalled: Promise<void> | undefined;
  let stallReads = false;
  const wrapped = new Proxy(bus, {
    get(target, property) {
      if (property === 'readRange') {
        return (...[topic, partition, range, handle]: Parameters<EventBus['readRange']>) =>
          target.readRange(topic, partition, range, async (batch) => {
            while (stalled && stallReads) await stalled;
            return handle(batch);
          });
      }
      if (property !== 'subscribe') {
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      }
      return (options: SubscribeOptions) =>
        target.subscribe({
          ...options,
          handleBatch: async (batch) => {
            if (options.topics.includes(topics.gameVotes.name)) {
              while (stalled) await stalled;
              return options.handleBatch(batch);
            }
            if (options.topics.includes(topics.tournamentLifecycle.name)) {
              return options.handleBatch(
                batch.filter((message) => tournamentIds.includes(message.key)),
              );
            }
            return options.handleBatch(batch);
          },
        });
    },
  }) as EventBus;
  return {
    bus: wrapped,
    stall: ({ reads }: { reads: boolean }) => {
      stallReads = reads;
      stalled = new Promise<void>((resolve) => (release = resolve));
    },
    resume: () => {
      stalled = undefined;
      stallReads = false;
      release?.();
    },
  };
}

/**
 * Acceptance 1 of issue 35: a votes consumer held back for 15 s across a round's deadline, on the
 * harness's real Kafka (the chart's 10 s group session) and real Redis. The votes were on the
 * bus before the deadline — acknowledged to their players — so the round never resolves without
 * them: it applies them itself when the consumer's mark stands still (`applyBehind`), and with
 * every path held it waits, however long, and counts every one.
 */
describe('a round whose votes consumer stalls across the deadline', () => {
  /** One tournament a test: the first with the consumer held, the second with every path held. */
  const tournaments = [randomUUID(), randomUUID()] as const;
  let kafka: KafkaBus;
  let store: LiveStore;
  let stallable: ReturnType<typeof stallableBus>;
  let running: EngineOnStore;

  beforeAll(async () => {
    const infra = testInfra();
    kafka = createKafkaBus({
      brokers: infra.kafkaBrokers,
      clientId: `votes-stall-${randomUUID()}`,
      logger: silentLogger,
      sessionTimeoutMs: CHART_SESSION_TIMEOUT_MS,
      heartbeatIntervalMs: CHART_HEARTBEAT_MS,
    });
    await kafka.ensureTopics(allTopics);
    // Keys of its own: the applied marks (`games:votes-applied:P`) and `games:active` are shared
    // on the harness's Redis otherwise.
    store = await createRedisStore({
      url: infra.redisUrl,
      keyPrefix: `votes-stall-${randomUUID()}:`,
    });
    stallable = stallableBus(kafka, tournaments);
    running = await startEngineOnStore(
      store,
      `votes-stall-recorder-${randomUUID()}`,
      // Groups of its own on the shared broker; the session is the bus's, made above.
      { GAME_KAFKA_GROUP_PREFIX: `votes-stall-${randomUUID()}-` },
      stallable.bus,
    );
  }, 60_000);

  afterAll(async () => {
    stallable?.resume();
    await running?.stop();
    await store?.close();
    await kafka?.close();
  });

  const events = (tournamentId: string, kind: NonNullable<GameEvent['kind']['case']>) =>
    running.recorder.events.filter(
      (event) => event.tournamentId === tournamentId && event.kind.case === kind,
    );

  /**
   * Opens `tournamentId`'s game, holds the votes consumer (and with `reads` the close's own reads)
   * from 1.5 s before round 1's deadline, and publishes three acknowledged votes: ann and bob
   * pick image 1, cyd image 2. Resolves with round 1's deadline and when the hold began.
   */
  async function stallAcrossDeadline(tournamentId: string, reads: boolean) {
    const { engine } = running;
    const partition = await kafka.partitionOf(topics.gameVotes.name, tournamentId);
    // The consumer, new to its group, reads the partition's history first: caught up before the
    // stall, so what it holds back is this round's votes.
    const end = BigInt(await kafka.endOffset(topics.gameVotes.name, partition));
    await waitFor(
      async () => (await engine.app.live.votesApplied(partition)) >= end,
      'the votes consumer caught up with the partition',
      30_000,
    );
    await openTournament(kafka, engine, tournamentId, ROUND_SECONDS, ['ann', 'bob', 'cyd']);
    await publishTournamentNews(kafka, tournamentId, 'live', ROUND_SECONDS);
    await waitFor(() => events(tournamentId, 'roundVotingStarted').length > 0, 'round 1', 20_000);
    const gameId = events(tournamentId, 'gameStarted')[0]!.gameId;
    const deadline = (await engine.app.live.state(tournamentId))!.votingEndsAt;

    await waitFor(
      () => Date.now() >= deadline - STALL_BEFORE_DEADLINE_MS,
      'round 1 nearly over',
      ROUND_SECONDS * 1000,
    );
    stallable.stall({ reads });
    const stalledAt = Date.now();
    await publishRoundOneVotes(kafka, tournamentId, gameId, [
      ['ann', 1],
      ['bob', 1],
      ['cyd', 2],
    ]);
    // Else the votes would not be acknowledged ones, and the test would prove nothing.
    expect(Date.now()).toBeLessThan(deadline);
    return { deadline, stalledAt };
  }

  async function expectEveryVoteCounted(tournamentId: string) {
    await waitFor(() => events(tournamentId, 'roundResults').length > 0, 'round 1 results', 20_000);
    const [results] = events(tournamentId, 'roundResults');
    expect(results!.kind.value).toMatchObject({
      roundNumber: 1,
      totalVotes: 3,
      winningImageIds: ['round-1-image-2'],
    });
    await waitFor(() => events(tournamentId, 'gameEnded').length > 0, 'the game to end', 20_000);
    expect(events(tournamentId, 'gameEnded')[0]!.kind.value).toMatchObject({
      winnerUserId: 'cyd',
    });
  }

  it('applies the votes itself when the consumer stands still, and closes on time with all of them', async () => {
    const tournamentId = tournaments[0];
    const { deadline, stalledAt } = await stallAcrossDeadline(tournamentId, false);
    // The consumer is still held (its group would hand the partition over after 10 s, not
    // before): the round closes from the close's own read, deadline + grace + 4 s at most.
    await waitFor(
      () => events(tournamentId, 'roundResults').length > 0,
      'round 1 results while the consumer is held',
      STALL_MS,
    );
    const resultsAt = timestampDate(events(tournamentId, 'roundResults')[0]!.occurredAt!);
    expect(Date.now() - stalledAt).toBeLessThan(STALL_MS);
    expect(resultsAt.getTime() - deadline).toBeLessThanOrEqual(VOTING_GRACE_MS + 4_000);
    stallable.resume();
    await expectEveryVoteCounted(tournamentId);
  }, 90_000);

  it('waits for them as long as every path is held, and never resolves without them', async () => {
    const tournamentId = tournaments[1];
    const { stalledAt } = await stallAcrossDeadline(tournamentId, true);
    await waitFor(() => Date.now() - stalledAt >= STALL_MS, 'the stall', STALL_MS + 5_000);
    // Held back past the deadline, the grace and more: the round has not resolved without them.
    expect(events(tournamentId, 'roundResults')).toHaveLength(0);
    expect((await running.engine.app.live.state(tournamentId))?.phase).toBe('voting_ended');
    stallable.resume();
    await expectEveryVoteCounted(tournamentId);
  }, 90_000);
});
