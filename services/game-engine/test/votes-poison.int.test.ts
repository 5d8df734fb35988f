import { randomUUID } from 'node:crypto';
import {
  createKafkaBus,
  DEAD_LETTER_HEADERS,
  type BusMessage,
  type KafkaBus,
  type Subscription,
} from '@underdog/bus';
import { testInfra } from '@underdog/harness';
import { allTopics, topics } from '@underdog/platform';
import { create, GameVoteEventSchema, toBinary } from '@underdog/proto';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { openTournament, startEngineOnStore, startGame, type EngineOnStore } from './fault-support';
import { publishRoundOneVotes, silentLogger, voteMessage, waitFor } from './support';

/**
 * Issue 38: a poison message on `game.votes` — bytes that are no event, or a vote event whose
 * fields the gateway could never have produced — is parked in `game.votes.dead-letter` and
 * passed; it neither stalls the partition nor crashes the engine, and the good votes after it,
 * on the same partition, still apply. On the harness's real Kafka and real Redis.
 */
describe('a poison message on game.votes', () => {
  const tournamentId = randomUUID();
  let kafka: KafkaBus;
  let store: LiveStore;
  let running: EngineOnStore;
  let deadLetters: Subscription;
  const parked: BusMessage[] = [];

  beforeAll(async () => {
    const infra = testInfra();
    kafka = createKafkaBus({
      brokers: infra.kafkaBrokers,
      clientId: `votes-poison-${randomUUID()}`,
      logger: silentLogger,
    });
    await kafka.ensureTopics(allTopics);
    store = await createRedisStore({
      url: infra.redisUrl,
      keyPrefix: `votes-poison-${randomUUID()}:`,
    });
    running = await startEngineOnStore(
      store,
      `votes-poison-recorder-${randomUUID()}`,
      { GAME_KAFKA_GROUP_PREFIX: `votes-poison-${randomUUID()}-` },
      kafka,
    );
    deadLetters = await kafka.subscribe({
      groupId: `votes-poison-dead-letters-${randomUUID()}`,
      topics: [topics.gameVotesDeadLetter.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        parked.push(...batch.filter((message) => message.key.includes(tournamentId)));
      },
    });
  }, 60_000);

  afterAll(async () => {
    await deadLetters?.stop();
    await running?.stop();
    await store?.close();
    await kafka?.close();
  });

  it('is parked in game.votes.dead-letter, and the good votes after it on its partition still count', async () => {
    const { engine, recorder } = running;
    await openTournament(kafka, engine, tournamentId, 3, ['ann', 'bob', 'cyd']);
    const gameId = await startGame(kafka, recorder, tournamentId, 3);
    // On the partition of ann's vote: the key of a real vote of this game.
    const good = voteMessage({
      tournamentId,
      gameId,
      voteId: randomUUID(),
      userId: 'ann',
      roundNumber: 1,
      imageId: 'round-1-image-1',
    });
    const garbageEnvelope = create(GameVoteEventSchema, {
      tournamentId,
      kind: {
        case: 'voteCast',
        value: {
          voteId: '',
          gameId,
          userId: 'bob',
          username: 'bob',
          roundNumber: 0,
          imageId: 'round-1-image-1',
          // 10^15 seconds: past any date JavaScript can hold, so no cast time can be read.
          castAt: { seconds: 10n ** 15n, nanos: 0 },
        },
      },
    });
    await kafka.publish(topics.gameVotes.name, [
      { key: good.key, value: Uint8Array.from([0xff, 0xff, 0xff, 0x07, 0x01]), headers: {} },
      { key: good.key, value: toBinary(GameVoteEventSchema, garbageEnvelope), headers: {} },
    ]);
    // After the poison, on the same partition: ann and bob pick image 1, cyd image 2.
    await publishRoundOneVotes(kafka, tournamentId, gameId, [
      ['ann', 1],
      ['bob', 1],
      ['cyd', 2],
    ]);

    // The harness's Kafka is shared: other files' games publish their results on game.events too.
    const ourResults = () =>
      recorder.events.find(
        (event) => event.tournamentId === tournamentId && event.kind.case === 'roundResults',
      );
    await waitFor(() => ourResults() !== undefined, 'round 1 results', 30_000);
    expect(ourResults()!.kind.value).toMatchObject({
      roundNumber: 1,
      totalVotes: 3,
      winningImageIds: ['round-1-image-2'],
    });
    await waitFor(() => parked.length >= 2, 'the two poison messages parked', 30_000);
    expect(parked.map((message) => message.headers[DEAD_LETTER_HEADERS.reason])).toEqual([
      'unreadable',
      'invalid',
    ]);
    const partition = await kafka.partitionOf(topics.gameVotes.name, good.key);
    for (const message of parked) {
      expect(message.headers).toMatchObject({
        [DEAD_LETTER_HEADERS.topic]: topics.gameVotes.name,
        [DEAD_LETTER_HEADERS.partition]: String(partition),
      });
    }
    expect(parked[1]!.headers[DEAD_LETTER_HEADERS.detail]).toBe(
      'no voteId, round 0, an unreadable cast time',
    );
  }, 90_000);
});
