/** One topic's messages in a combined send, in the order they were published. */
export interface TopicBatch<M> {
  topic: string;
  messages: M[];
}

interface Pending<M, R> {
  topic: string;
  messages: M[];
  resolve: (results: R[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for a producer that allows one request in flight (Kafka's idempotent producer):
 * the first publish is sent at once, and everything published while a send is in flight goes
 * out together in the next one. Each publish resolves (or rejects) with the send that carried
 * its messages, so "resolved" still means "acknowledged by the broker", and resolves with what
 * the send answered for each of its own messages (`R`: where it was appended). Without it every
 * publish waits for all the ones before it, one round trip each: a few hundred votes a second
 * queue up behind each other (docs/benchmarks.md).
 */
export class PublishBatcher<M, R = void> {
  private queue: Pending<M, R>[] = [];
  private sending = false;

  constructor(
    /** Sends the batches; answers one result per message, batch by batch, in their order. */
    private readonly send: (batches: TopicBatch<M>[]) => Promise<R[][]>,
    /** At most this many messages in one send (a Kafka request is bounded in size). */
    private readonly maxMessages = 500,
  ) {}

  publish(topic: string, messages: M[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ topic, messages, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.queue.length > 0) {
      const taken: Pending<M, R>[] = [];
      let count = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        if (taken.length > 0 && count + next.messages.length > this.maxMessages) break;
        taken.push(this.queue.shift()!);
        count += next.messages.length;
      }
      const byTopic = new Map<string, M[]>();
      // Where each publish's messages start in its topic's batch.
      const starts = taken.map((pending) => {
        const messages = byTopic.get(pending.topic) ?? [];
        const start = messages.length;
        messages.push(...pending.messages);
        byTopic.set(pending.topic, messages);
        return start;
      });
      try {
        const batches = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
        const answered = await this.send(batches);
        const results = new Map(batches.map(({ topic }, i) => [topic, answered[i] ?? []]));
        taken.forEach((pending, i) => {
          const start = starts[i]!;
          pending.resolve(
            results.get(pending.topic)!.slice(start, start + pending.messages.length),
          );
        });
      } catch (error) {
        for (const pending of taken) pending.reject(error);
      }
    }
    this.sending = false;
  }
}
