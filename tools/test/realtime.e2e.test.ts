import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import {
  openWs,
  wsUrlOf,
  type ServerMessageLike,
  type WsTestClient,
} from '../../gateway/test/realtime-clients';
import { startStack, type Stack } from '../stack/stack';
import { adminClient, testAdmin, verifiedUser, type ApiClient } from './support';

const JOIN = 'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }';

/** The game's messages, without what depends on the instant a replica built them. */
const gameMessages = (messages: ServerMessageLike[]) =>
  messages
    .filter((m) => !['tournaments_update', 'game_state_update', 'error'].includes(m.type))
    .filter((m) => m.type !== 'tournament_live')
    .map((m) => JSON.stringify({ ...m, timeRemaining: undefined }));

/**
 * Two gateway processes on the distributed stack (real Kafka, Redis, the engine): each replica
 * consumes game.events in its own group and pushes to its own sockets.
 */
describe('the real-time fan-out across two gateway replicas', () => {
  let stack: Stack;
  let admin: ApiClient;
  const sockets: WsTestClient[] = [];

  beforeAll(async () => {
    stack = await startStack({
      infra: testInfra(),
      extraGateways: 1,
      logDir: mkdtempSync(join(tmpdir(), 'underdog-realtime-')),
      env: {
        ADMIN_EMAIL: testAdmin.email,
        ADMIN_PASSWORD: testAdmin.password,
        TOURNAMENT_SCHEDULER_POLL_MS: '200',
      },
    });
    await stack.waitUntilReady(120_000);
    admin = await adminClient(stack.gatewayUrl);
  }, 180_000);

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await stack?.stop();
  });

  const ws = async (gatewayUrl: string, cookie = '') => {
    const socket = await openWs(wsUrlOf(`${gatewayUrl}/ws`), {
      origin: gatewayUrl,
      ...(cookie ? { cookie } : {}),
    });
    sockets.push(socket);
    return socket;
  };

  it('gives watchers on both replicas the same ordered game, and counts a vote cast on the second', async () => {
    const [first, second] = stack.gatewayUrls as [string, string];
    expect(stack.gatewayUrls).toHaveLength(2);
    const ann = await verifiedUser(first, 'ann');
    const bob = await verifiedUser(first, 'bob');
    const created = await admin.call('POST', '/api/tournaments', {
      title: 'Two Replicas Cup',
      prize: '$20',
      startAt: new Date(Date.now() + 8_000).toISOString(),
      roundTimeSeconds: 5,
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };
    for (const player of [ann, bob]) {
      const joined = await player.call('POST', '/graphql', { query: JOIN, variables: { id } });
      expect(joined.body).toEqual({ data: { joinTournament: { isParticipant: true } } });
    }

    const watchers = [await ws(first), await ws(second)];
    for (const watcher of watchers) {
      watcher.send({ type: 'subscribe_tournament', tournamentId: id });
      await watcher.waitFor((m) => m.type === 'game_state_update');
    }
    const player = await ws(second, ann.cookie());
    player.send({ type: 'subscribe_tournament', tournamentId: id });
    const voting = (await player.waitFor((m) => m.type === 'round_voting_started', {
      timeoutMs: 60_000,
    })) as ServerMessageLike & { roundNumber: number; round: { images: Array<{ id: string }> } };
    const imageId = voting.round.images[2]!.id;
    player.send({
      type: 'game_action',
      tournamentId: id,
      action: 'image_select',
      playerId: 'ignored',
      imageId,
      round: voting.roundNumber,
      timestamp: new Date().toISOString(),
    });
    expect(await player.waitFor((m) => m.type === 'vote_processed')).toEqual({
      type: 'vote_processed',
      tournamentId: id,
      imageId,
      round: 1,
    });

    // bob does not vote: he is out and ann wins, which ends the game after round 1.
    for (const watcher of watchers) {
      await watcher.waitFor((m) => m.type === 'game_finished', { timeoutMs: 60_000 });
    }
    const [onFirst, onSecond] = watchers.map((watcher) => gameMessages(watcher.messages));
    expect(onFirst!.length).toBeGreaterThanOrEqual(8);
    expect(onSecond).toEqual(onFirst);
    const results = watchers[0]!.messages.find((m) => m.type === 'results_started') as
      (ServerMessageLike & { results: Array<{ imageId: string; votes: number }> }) | undefined;
    expect(results?.results.find((result) => result.imageId === imageId)?.votes).toBe(1);
    expect(watchers[1]!.messages.find((m) => m.type === 'game_ended')).toMatchObject({
      decidedBy: 'last_standing',
      winnerId: expect.any(String),
    });
  }, 150_000);
});
