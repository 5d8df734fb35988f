// Seeding a round: the tournaments, each on a `game.votes` partition of its own (and, with
// several engine replicas, one a different replica plays), and the players, through the
// benchmark-only seam (`POST /api/benchmark/players`).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { createKafkaBus, partitionOf } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import type { Api } from './gateway-api';
import type { DriverPlayer } from './driver-contract';
import type { Target } from './target';

const SEED_BATCH = 2000;

/**
 * Waits until the game engine knows the tournament: a `/ws` subscription gets its snapshot. Not
 * test-support's `waitFor` (issue 27 point 5): the driver is a benchmark program, not a test,
 * and opens one socket per look, so it looks every 300 ms.
 */
async function waitForGame(gatewayUrl: string, tournamentId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const known = await new Promise<boolean>((resolve) => {
      const socket = new WebSocket(`${gatewayUrl.replace(/^http/, 'ws')}/ws`);
      const done = (value: boolean) => {
        socket.terminate();
        resolve(value);
      };
      socket.on('open', () =>
        socket.send(JSON.stringify({ type: 'subscribe_tournament', tournamentId })),
      );
      socket.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('{"type":"game_state_update"')) done(true);
        else if (text.startsWith('{"type":"error"')) done(false);
      });
      socket.on('error', () => done(false));
    });
    if (known) return;
    await sleep(300);
  }
  throw new Error(`the game engine never learned tournament ${tournamentId}`);
}

interface TournamentView {
  id: string;
  title: string;
  prize: string | null;
}

/**
 * The partitions each engine replica both applies the votes of (group `game-engine-votes`) and
 * runs the games of (group `game-engine` consumes the `live` events; a game runs where its
 * `live` event is consumed). Both topics have 12 partitions keyed by tournament id, so a
 * tournament is on the same partition of each. Read from Kafka, once both groups have settled
 * with every replica: the round-robin assigner deals partitions in the order of the topic's
 * metadata, which is not always the partitions' order, so `p mod replicas` guessed wrong (both
 * games of a pair ran on one replica in some runs).
 */
async function enginePlacement(brokers: string[], replicas: number): Promise<Array<Set<number>>> {
  const admin = createKafkaBus({
    brokers,
    clientId: 'bench-placement',
    logger: createLogger({ service: 'bench', level: 'silent' }),
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [votes, live] = await Promise.all([
        admin.partitionOwners('game-engine-votes', topics.gameVotes.name),
        admin.partitionOwners('game-engine', topics.tournamentLifecycle.name),
      ]);
      const members = [...new Set(votes.values())].sort();
      const settled =
        votes.size === topics.gameVotes.partitions &&
        live.size === topics.tournamentLifecycle.partitions &&
        members.length === replicas &&
        new Set(live.values()).size === replicas;
      if (settled) {
        return members.map(
          (member) =>
            new Set(
              [...votes]
                .filter(([partition, owner]) => owner === member && live.get(partition) === member)
                .map(([partition]) => partition),
            ),
        );
      }
      if (Date.now() > deadline) {
        throw new Error(`the ${replicas} engine replicas did not all join their consumer groups`);
      }
      await sleep(500);
    }
  } finally {
    await admin.close();
  }
}

/**
 * Creates a tournament far in the future on a partition not in `partitionsInUse`, and, when
 * `allowed` is given, on one of those.
 */
async function createTournament(
  api: Api,
  roundSeconds: number,
  partitionsInUse: Set<number>,
  allowed?: Set<number>,
): Promise<TournamentView & { partition: number }> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const tournament = await api.call<TournamentView>('POST', '/api/tournaments', {
      title: `Bench ${new Date().toISOString()}`,
      prize: '$1',
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
      roundTimeSeconds: roundSeconds,
    });
    const partition = partitionOf(tournament.id, topics.gameVotes.partitions);
    if ((!allowed || allowed.has(partition)) && !partitionsInUse.has(partition)) {
      partitionsInUse.add(partition);
      return { ...tournament, partition };
    }
    await api.call('DELETE', `/api/tournaments/${tournament.id}`, {});
  }
  throw new Error('no tournament landed on a free game.votes partition');
}

interface SeededPlayer {
  username: string;
  sessionId: string;
  deviceId: string;
}

async function seedPlayers(
  api: Api,
  count: number,
  tournamentId: string,
): Promise<{ cookieName: string; players: SeededPlayer[] }> {
  const players: SeededPlayer[] = [];
  let cookieName = '';
  const run = randomBytes(2).toString('hex');
  for (let batch = 0; batch * SEED_BATCH < count; batch += 1) {
    const answer = await api.call<{ cookieName: string; players: SeededPlayer[] }>(
      'POST',
      '/api/benchmark/players',
      {
        count: Math.min(SEED_BATCH, count - batch * SEED_BATCH),
        label: `${run}${batch.toString(36)}`,
        tournamentId,
      },
    );
    cookieName = answer.cookieName;
    players.push(...answer.players);
  }
  return { cookieName, players };
}

/** A tournament of the round, and the `game.votes` partition it is on. */
export type BenchTournament = TournamentView & { partition: number };

/**
 * Creates `count` tournaments, each on a partition of its own (with several engine replicas,
 * tournament i on one replica i mod engines plays), and waits until the engine knows each.
 */
export async function createTournaments(
  api: Api,
  target: Target,
  options: { count: number; roundSeconds: number; engines: number },
  log: (line: string) => void,
): Promise<BenchTournament[]> {
  const [gatewayUrl] = target.gatewayUrls as [string];
  const { engines } = options;
  const partitions = new Set<number>();
  const tournaments: BenchTournament[] = [];
  const placement =
    engines > 1 && target.kafkaBrokers
      ? await enginePlacement(target.kafkaBrokers, engines)
      : undefined;
  if (placement) {
    log(
      `engine replicas' partitions (votes and games): ${placement.map((set) => [...set].sort((a, b) => a - b).join(',') || 'none').join(' | ')}`,
    );
  }
  for (let index = 0; index < options.count; index += 1) {
    const tournament = await createTournament(
      api,
      options.roundSeconds,
      partitions,
      placement?.[index % engines],
    );
    await waitForGame(gatewayUrl, tournament.id);
    tournaments.push(tournament);
  }
  return tournaments;
}

/** Seeds `count` players split evenly over the tournaments, spread over the gateways. */
export async function seedTournaments(
  api: Api,
  tournaments: BenchTournament[],
  count: number,
  gateways: number,
): Promise<{ cookieName: string; players: DriverPlayer[] }> {
  const players: DriverPlayer[] = [];
  let cookieName = '';
  for (const [index, tournament] of tournaments.entries()) {
    const share =
      Math.floor(count / tournaments.length) + (index < count % tournaments.length ? 1 : 0);
    const seeded = await seedPlayers(api, share, tournament.id);
    cookieName = seeded.cookieName;
    for (const player of seeded.players) {
      players.push({
        ...player,
        tournament: index,
        gateway: players.length % gateways,
      });
    }
  }
  return { cookieName, players };
}
