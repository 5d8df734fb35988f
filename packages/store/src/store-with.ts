import type { LiveStore } from './port';

/**
 * The store with some of its commands replaced and every other one its own: the one way to wrap
 * a command (tests watching or holding `run`, answering `waitForReplicas`), instead of a Proxy
 * written out at each place.
 */
export function storeWith(store: LiveStore, replaced: Partial<LiveStore>): LiveStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (Object.prototype.hasOwnProperty.call(replaced, property)) {
        return replaced[property as keyof LiveStore];
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
