import { createMemoryBus } from '../src';
import { describeEventBusContract } from './event-bus.contract';

describeEventBusContract('in-memory', async () => {
  const bus = createMemoryBus();
  return { bus, cleanup: () => bus.close() };
});
