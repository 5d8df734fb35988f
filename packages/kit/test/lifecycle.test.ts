import { ComponentGroup, createLogger } from '../src';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('ComponentGroup', () => {
  it('starts components in order and stops them in reverse', async () => {
    const events: string[] = [];
    const component = (name: string) => ({
      name,
      start: async () => void events.push(`start ${name}`),
      stop: async () => void events.push(`stop ${name}`),
    });
    const group = new ComponentGroup(logger, [
      component('db'),
      component('consumer'),
      component('http'),
    ]);
    await group.start();
    await group.stop();
    expect(events).toEqual([
      'start db',
      'start consumer',
      'start http',
      'stop http',
      'stop consumer',
      'stop db',
    ]);
  });

  it('stops what it started when a later component fails to start', async () => {
    const stopped: string[] = [];
    const group = new ComponentGroup(logger, [
      { name: 'db', stop: async () => void stopped.push('db') },
      {
        name: 'broken',
        start: async () => {
          throw new Error('cannot connect');
        },
      },
      { name: 'never', stop: async () => void stopped.push('never') },
    ]);
    await expect(group.start()).rejects.toThrow('cannot connect');
    expect(stopped).toEqual(['db']);
  });

  it('is ready only when every component is started and reports ready', async () => {
    let kafkaUp = false;
    const group = new ComponentGroup(logger, [
      { name: 'kafka', isReady: () => kafkaUp },
      { name: 'redis', isReady: async () => true },
    ]);
    expect(await group.readiness()).toEqual({
      ready: false,
      checks: { kafka: false, redis: false },
    });
    await group.start();
    expect(await group.readiness()).toEqual({
      ready: false,
      checks: { kafka: false, redis: true },
    });
    kafkaUp = true;
    expect((await group.readiness()).ready).toBe(true);
    await group.stop();
    expect((await group.readiness()).ready).toBe(false);
  });

  it('answers readiness when a check never does: that check is not ready, the others are read', async () => {
    // A stalled dependency (SIGSTOP of Redis, a silent partition) leaves its check hanging.
    const group = new ComponentGroup(
      logger,
      [
        { name: 'redis', isReady: () => new Promise<boolean>(() => undefined) },
        { name: 'kafka', isReady: async () => true },
      ],
      10_000,
      50,
    );
    await group.start();
    expect(await group.readiness()).toEqual({
      ready: false,
      checks: { redis: false, kafka: true },
    });
    await group.stop();
  });

  it('keeps stopping the others when one component fails to stop', async () => {
    const stopped: string[] = [];
    const group = new ComponentGroup(logger, [
      { name: 'db', stop: async () => void stopped.push('db') },
      {
        name: 'stuck',
        stop: async () => {
          throw new Error('stuck');
        },
      },
    ]);
    await group.start();
    await group.stop();
    expect(stopped).toEqual(['db']);
  });
});
