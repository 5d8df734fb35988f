import { createMemoryBus } from '../src';
import { describeEventBusContract } from './contract';

describeEventBusContract('in-memory', async () => {
  const bus = createMemoryBus();
  return { bus, cleanup: () => bus.close() };
});
