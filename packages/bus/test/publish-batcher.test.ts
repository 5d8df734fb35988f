import { PublishBatcher, type TopicBatch } from '../src/publish-batcher';

/**
 * A send that waits until the test lets it finish, recording what it carried; it answers
 * `topic/message#n` for the n-th message of each topic's batch.
 */
function controlledSend() {
  const sends: Array<{ batches: TopicBatch<string>[]; finish: (error?: Error) => void }> = [];
  const send = (batches: TopicBatch<string>[]) =>
    new Promise<string[][]>((resolve, reject) => {
      const answer = batches.map(({ topic, messages }) =>
        messages.map((message, n) => `${topic}/${message}#${n}`),
      );
      sends.push({ batches, finish: (error) => (error ? reject(error) : resolve(answer)) });
    });
  return { sends, send };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatcher (group commit for a one-request-in-flight producer)', () => {
  it('sends the first publish at once and everything published meanwhile in one next send, in order; each resolves with what the send answered for its own messages', async () => {
    const { sends, send } = controlledSend();
    const batcher = new PublishBatcher(send);
    const first = batcher.publish('votes', ['v1']);
    await settled();
    const waiting = [
      batcher.publish('votes', ['v2']),
      batcher.publish('events', ['e1']),
      batcher.publish('votes', ['v3', 'v4']),
    ];
    await settled();
    expect(sends).toHaveLength(1);
    expect(sends[0]!.batches).toEqual([{ topic: 'votes', messages: ['v1'] }]);

    sends[0]!.finish();
    await expect(first).resolves.toEqual(['votes/v1#0']);
    await settled();
    expect(sends).toHaveLength(2);
    expect(sends[1]!.batches).toEqual([
      { topic: 'votes', messages: ['v2', 'v3', 'v4'] },
      { topic: 'events', messages: ['e1'] },
    ]);
    sends[1]!.finish();
    await expect(Promise.all(waiting)).resolves.toEqual([
      ['votes/v2#0'],
      ['events/e1#0'],
      ['votes/v3#1', 'votes/v4#2'],
    ]);
  });

  it('rejects exactly the publishes of a failed send, and goes on with the next ones', async () => {
    const { sends, send } = controlledSend();
    const batcher = new PublishBatcher(send);
    const first = batcher.publish('votes', ['v1']);
    await settled();
    const failing = batcher.publish('votes', ['v2']);
    sends[0]!.finish();
    await first;
    await settled();
    const later = batcher.publish('votes', ['v3']);
    sends[1]!.finish(new Error('broker down'));
    await expect(failing).rejects.toThrow('broker down');
    await settled();
    expect(sends[2]!.batches).toEqual([{ topic: 'votes', messages: ['v3'] }]);
    sends[2]!.finish();
    await expect(later).resolves.toEqual(['votes/v3#0']);
  });

  it('caps a send at maxMessages, never splitting one publish', async () => {
    const { sends, send } = controlledSend();
    const batcher = new PublishBatcher(send, 3);
    const all = [batcher.publish('t', ['a'])];
    await settled();
    all.push(batcher.publish('t', ['b', 'c']), batcher.publish('t', ['d', 'e']));
    sends[0]!.finish();
    await settled();
    expect(sends[1]!.batches).toEqual([{ topic: 't', messages: ['b', 'c'] }]);
    sends[1]!.finish();
    await settled();
    expect(sends[2]!.batches).toEqual([{ topic: 't', messages: ['d', 'e'] }]);
    sends[2]!.finish();
    await Promise.all(all);
  });
});
