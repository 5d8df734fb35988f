import { createMemoryStore } from '../src';
import { describeLiveStoreContract } from './contract';

describeLiveStoreContract('memory', async () => {
  const store = createMemoryStore();
  return {
    store,
    // One process holds one store: every "client" is the same one.
    connectAnother: async () => store,
    cleanup: () => store.close(),
  };
});

describe('memory store', () => {
  it('measures expiry against the clock it is given', async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    await store.set('session', 'user-1', { ttlMs: 10 });
    now = 5;
    expect(await store.ttlMs('session')).toBe(5);
    now = 10;
    expect(await store.get('session')).toBeNull();
  });
});
