export * from './port';
export { createMemoryBus, MemoryBus, partitionFor } from './memory';
export { createKafkaBus, KafkaBus, type KafkaBusOptions } from './kafka';
export { partitionOf } from './partition';
export {
  REQUEST_ID_MESSAGE_HEADER,
  handleBatchInContext,
  inMessageContext,
  withRequestIdHeader,
} from './request-context';
export {
  batchConsumer,
  decodingBatchHandler,
  eventConsumer,
  messageLogContext,
  type BatchConsumerOptions,
  type EventConsumerOptions,
} from './consumer';
export { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox';
export { DEAD_LETTER_HEADERS, deadLetterOf, parkMessages, type Poison } from './dead-letter';
