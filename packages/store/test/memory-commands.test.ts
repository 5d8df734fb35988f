import { MemoryCommands } from '../src/memory-commands';

describe('memory commands', () => {
  it('measures expiry against the clock it is given', () => {
    let now = 0;
    const redis = new MemoryCommands(() => now);
    redis.set('session', 'user-1', { ttlMs: 10 });
    now = 4;
    expect(redis.ttlMs('session')).toBe(6);
    now = 10;
    expect(redis.get('session')).toBeNull();
  });

  it('sweeps expired keys nobody reads again', () => {
    let now = 0;
    const redis = new MemoryCommands(() => now);
    for (let i = 0; i < 100; i += 1) redis.set(`vote:${i}`, 'image-1', { ttlMs: 50 });
    redis.set('forever', 'kept');
    redis.set('overwritten', 'v', { ttlMs: 50 });
    redis.set('overwritten', 'v');
    expect(redis.size).toBe(102);

    now = 5_000;
    redis.get('forever');
    expect(redis.size).toBe(2);
  });

  it('sweeps a few hundred keys at a time, going on where the last sweep stopped', () => {
    let now = 0;
    const redis = new MemoryCommands(() => now);
    for (let i = 0; i < 1_200; i += 1) redis.set(`vote:${i}`, 'image-1', { ttlMs: 50 });
    redis.set('forever', 'kept');

    const sizes: number[] = [];
    for (let sweep = 1; sweep <= 4; sweep += 1) {
      now = 5_000 + sweep * 100;
      redis.get('forever');
      sizes.push(redis.size);
    }
    expect(sizes).toEqual([701, 201, 1, 1]);
  });
});
