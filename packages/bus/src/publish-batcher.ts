/** One topic's messages in a combined send, in the order they were published. */
export interface TopicBatch<M> {
  topic: string;
  messages: M[];
}

interface Pending<M> {
  topic: string;
  messages: M[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for a producer that allows one request in flight (Kafka's idempotent producer):
 * the first publish is sent at once, and everything published while a send is in flight goes
 * out together in the next one. Each publish resolves (or rejects) with the send that carried
 * its messages, so "resolved" still means "acknowledged by the broker". Without it every
 * publish waits for all the ones before it, one round trip each: a few hundred votes a second
 * queue up behind each other (docs/benchmarks.md).
 */
export class PublishBatcher<M> {
  private queue: Pending<M>[] = [];
  private sending = false;

  constructor(
    private readonly send: (batches: TopicBatch<M>[]) => Promise<void>,
    /** At most this many messages in one send (a Kafka request is bounded in size). */
    private readonly maxMessages = 500,
  ) {}

  publish(topic: string, messages: M[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, messages, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.queue.length > 0) {
      const taken: Pending<M>[] = [];
      let count = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        if (taken.length > 0 && count + next.messages.length > this.maxMessages) break;
        taken.push(this.queue.shift()!);
        count += next.messages.length;
      }
      const byTopic = new Map<string, M[]>();
      for (const pending of taken) {
        const messages = byTopic.get(pending.topic) ?? [];
        messages.push(...pending.messages);
        byTopic.set(pending.topic, messages);
      }
      try {
        await this.send([...byTopic].map(([topic, messages]) => ({ topic, messages })));
        for (const pending of taken) pending.resolve();
      } catch (error) {
        for (const pending of taken) pending.reject(error);
      }
    }
    this.sending = false;
  }
}
