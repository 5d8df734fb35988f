export * from './port';
export { createMemoryBus, MemoryBus, partitionFor } from './memory';
export { createKafkaBus, KafkaBus, type KafkaBusOptions } from './kafka';
export {
  REQUEST_ID_MESSAGE_HEADER,
  handleBatchInContext,
  inMessageContext,
  withRequestIdHeader,
} from './request-context';
export {
  decodingBatchHandler,
  eventConsumer,
  messageLogContext,
  type EventConsumerOptions,
} from './consumer';
export { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox';
