import { randomUUID } from 'node:crypto';
import { ComponentGroup } from '@underdog/kit';
import { testInfra } from '@underdog/harness';
import { createMemoryInfrastructure, type Infrastructure } from '@underdog/platform';
import { createRedisStore, type LiveStore } from '@underdog/store';
import { closeTakenOverMidElimination } from './close-support';
import { silentLogger, type TestEngine } from './support';

/**
 * The 25,000-player close taken over mid-elimination (close-at-scale.test.ts) on the harness's
 * Redis: the elimination steps are Lua scripts there, the reads SSCAN/HSCAN cursors.
 */
describe("a round's close with 25,000 players on Redis", () => {
  let store: LiveStore;
  let memory: ComponentGroup;
  let infrastructure: Infrastructure;
  const engines: TestEngine[] = [];

  beforeAll(async () => {
    // Keys of its own on the shared Redis (other files' engines sweep `games:active` there).
    store = await createRedisStore({
      url: testInfra().redisUrl,
      keyPrefix: `game-close-${randomUUID()}:`,
    });
    const inMemory = createMemoryInfrastructure(silentLogger);
    memory = new ComponentGroup(silentLogger, inMemory.components);
    await memory.start();
    infrastructure = { bus: inMemory.bus, documents: inMemory.documents, store, components: [] };
  }, 60_000);

  afterAll(async () => {
    for (const engine of engines.splice(0)) await engine.group.stop();
    await memory?.stop();
    await store?.close();
  });

  it('is finished by the replica that takes it over mid-elimination, as it was resolved', async () => {
    await closeTakenOverMidElimination(infrastructure, engines);
  }, 90_000);
});
