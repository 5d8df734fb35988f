import {
  currentRequestId,
  isSaneRequestId,
  runWithRequestId,
  runWithoutRequestId,
} from '@underdog/kit';
import type { BusMessage, SubscribeOptions } from './port';

/** The Kafka header with the id of the request that caused the message (see docs/events.md). */
export const REQUEST_ID_MESSAGE_HEADER = 'request-id';

/** A message's headers plus the current request's id, unless the publisher set one already. */
export function withRequestIdHeader(
  headers: Record<string, string> | undefined,
): Record<string, string> {
  const requestId = currentRequestId();
  if (requestId === undefined || headers?.[REQUEST_ID_MESSAGE_HEADER] !== undefined) {
    return { ...headers };
  }
  return { ...headers, [REQUEST_ID_MESSAGE_HEADER]: requestId };
}

function requestIdOf(message: BusMessage): string | undefined {
  const requestId = message.headers[REQUEST_ID_MESSAGE_HEADER];
  return requestId !== undefined && isSaneRequestId(requestId) ? requestId : undefined;
}

/**
 * Runs the handling of one consumed message with the request id it was published under, so the
 * consumer's log lines (and what it publishes or calls in turn) carry it.
 */
export function inMessageContext<T>(message: BusMessage, work: () => T): T {
  const requestId = requestIdOf(message);
  return requestId === undefined ? runWithoutRequestId(work) : runWithRequestId(requestId, work);
}

/**
 * The adapters' wrapper around a consumer's batch handler: a batch whose messages all come from
 * one request is handled in that request's context. Handlers of mixed batches wrap each message
 * in `inMessageContext` themselves.
 */
export function handleBatchInContext(
  handleBatch: SubscribeOptions['handleBatch'],
): SubscribeOptions['handleBatch'] {
  return (batch) => {
    const ids = new Set(batch.map(requestIdOf));
    const [only] = ids;
    return ids.size === 1 && only !== undefined
      ? runWithRequestId(only, () => handleBatch(batch))
      : runWithoutRequestId(() => handleBatch(batch));
  };
}
