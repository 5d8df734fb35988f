import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { retryRetriable } from '../src/kafka-client';

/** kafkajs's error for a moved leader, as `fetchTopicOffsets` throws it (its error table's entry). */
const notLeader = () =>
  new KafkaJSProtocolError({
    type: 'NOT_LEADER_FOR_PARTITION',
    code: 6,
    retriable: true,
    message: 'This server is not the leader for that topic-partition',
  } as unknown as Error);

describe('retryRetriable: an admin call asked again while kafkajs says it may succeed', () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  beforeEach(() => {
    waits.length = 0;
  });

  it('asks again after a moved leader, with the backoff, and answers what the new one says', async () => {
    let calls = 0;
    const answer = await retryRetriable(
      async () => {
        calls += 1;
        if (calls < 3) throw notLeader();
        return 'the end';
      },
      5,
      sleep,
    );
    expect({ answer, calls, waits }).toEqual({ answer: 'the end', calls: 3, waits: [100, 200] });
  });

  it('gives up after its retries with the last error', async () => {
    let calls = 0;
    const failing = retryRetriable(
      async () => {
        calls += 1;
        throw notLeader();
      },
      5,
      sleep,
    );
    await expect(failing).rejects.toThrow('not the leader');
    // The backoff doubles up to kafkaRetry's cap (500 ms).
    expect({ calls, waits }).toEqual({ calls: 6, waits: [100, 200, 400, 500, 500] });
  });

  it('does not ask again after an error kafkajs does not mark retriable', async () => {
    let calls = 0;
    const failing = retryRetriable(
      async () => {
        calls += 1;
        throw new KafkaJSNonRetriableError('the topic is gone');
      },
      5,
      sleep,
    );
    await expect(failing).rejects.toThrow('the topic is gone');
    expect(calls).toBe(1);
  });
});
