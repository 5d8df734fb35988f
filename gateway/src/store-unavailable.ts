/**
 * A live store call that got no answer in time: its connection died with the command sent (ioredis
 * sends it again after reconnecting), or the store is stalled. The call may still run later.
 * `isStoreUnavailable` (@underdog/kit) counts it as the store being unavailable.
 */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

/** The call, or a `StoreTimeoutError` after `ms`. */
export async function withStoreTimeout<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreTimeoutError(`${what}: no answer from the live store in ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
