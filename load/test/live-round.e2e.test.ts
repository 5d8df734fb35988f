import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { runBenchmark } from '../driver/bench';

/**
 * The benchmark's short correctness run (load/README.md): 300 players on the distributed stack
 * (real Kafka, Redis, the MongoDB-wire server, every service as its own process) play one live
 * round over the web app's transport (graphql-ws, `castVote` over the socket, the bench's
 * default); every vote the gateway acknowledged must be in the game's record of the
 * round (`player_votes`, read through the admin details). No timing is asserted.
 */
describe('one live round with 300 players on the distributed stack', () => {
  it('counts every acknowledged vote', async () => {
    const result = await runBenchmark({
      mode: 'distributed',
      players: 300,
      tournaments: 1,
      roundSeconds: 5,
      voteSpread: 0.6,
      drivers: 0,
      gateways: 1,
      infra: testInfra(),
      logDir: mkdtempSync(join(tmpdir(), 'underdog-bench-')),
    });

    expect(result.connected).toBe(300);
    const [round] = result.tournaments;
    expect(round?.votesSent).toBeGreaterThan(0);
    expect(round?.acked).toBeGreaterThan(0);
    expect(round?.ackedNotCounted).toEqual([]);
    expect(round?.recorded).toBeGreaterThanOrEqual(round?.acked ?? Infinity);
    // The results reached the players: what they saw is the round the record holds.
    expect(round?.gotResults).toBe(300);
  }, 180_000);
});
