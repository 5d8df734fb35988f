export * from './port';
export { createMemoryBus, MemoryBus, partitionFor } from './memory';
export { createKafkaBus, KafkaBus, type KafkaBusOptions } from './kafka';
