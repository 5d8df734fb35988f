/**
 * The kafkajs client's settings shared by `KafkaBus`'s client, producer and consumers: the retry
 * backoff, the routing of kafkajs's log to ours, and a fetched message as the port's.
 */
import { logLevel as KafkaLogLevel, type KafkaMessage, type LogEntry } from 'kafkajs';
import type { Logger } from '@underdog/kit';
import type { BusMessage } from './port';

/**
 * kafkajs's retries for the client, its admin, the producer and every consumer. The backoff
 * doubles from 100 ms but is capped at 500 ms (kafkajs's default cap is 30 s): when a broker dies,
 * the producer and consumers retry against the dead leader until the controller fences it
 * (`broker.session.timeout.ms`), and with the default cap the next attempt after the election
 * came up to 5 s later for the producer (a vote produce blocked that long, every vote behind it
 * answered VOTE_NOT_RECORDED) and 17–30 s later for a consumer that had exhausted its retries
 * and restarts after the last backoff. Each retry refreshes the metadata, so with the cap a send
 * or fetch reaches the new leader within half a second of its election (issue 29, the broker
 * kill). The cap was 1 s until a broker killed 1.2 s before a deadline, leading both the game's
 * votes and events partitions, put its results 4.9 s after the deadline (5.1 s in another such
 * run) against issue 38's 5 s: the engine's publish reached the new leader up to a second after
 * the election. An attempt against a dead broker is a refused connection or a metadata request,
 * cheap at twice a second.
 * 60 retries: about 28 s of trying before a send fails or a consumer restarts, as before.
 */
export const kafkaRetry = { initialRetryTime: 100, maxRetryTime: 500, retries: 60 } as const;

/**
 * Calls `attempt` again while it fails with an error kafkajs marks retriable (`retriable: true`:
 * a leader moved — `NOT_LEADER_FOR_PARTITION` after a broker restart or a preferred-leader
 * rebalance —, a leader not elected yet), with `kafkaRetry`'s backoff, at most `retries` more
 * times. For the admin calls kafkajs does not retry itself (`fetchTopicOffsets` gives up on a
 * moved leader at once, although it refreshed its metadata first). 7 retries: about 2.7 s.
 */
export async function retryRetriable<T>(
  attempt: () => Promise<T>,
  retries = 7,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  let delay: number = kafkaRetry.initialRetryTime;
  for (let tried = 0; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      const retriable = (error as { retriable?: unknown } | null)?.retriable === true;
      if (!retriable || tried >= retries) throw error;
      await sleep(delay);
      delay = Math.min(delay * 2, kafkaRetry.maxRetryTime);
    }
  }
}

export function logKafkaEntry(logger: Logger, { level, log }: LogEntry) {
  const { message, ...extra } = log;
  if (level === KafkaLogLevel.ERROR) logger.error(extra, message);
  else if (level === KafkaLogLevel.WARN) logger.warn(extra, message);
  else logger.debug(extra, message);
}

/** A message kafkajs fetched, as the port hands it to a handler. */
export function busMessageOf(
  batch: { topic: string; partition: number },
  message: KafkaMessage,
): BusMessage {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value === null ? null : new Uint8Array(message.value),
    headers: decodeHeaders(message.headers),
    timestamp: Number(message.timestamp),
  };
}

function decodeHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    decoded[name] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  return decoded;
}
