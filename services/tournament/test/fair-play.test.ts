import { addressPrefixHash, userAgentHash } from '@underdog/fair-play';
import { ComponentGroup } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  GameEventSchema,
  GameVoteEventSchema,
  FairPlaySignalSchema,
  create,
  encodeEvent,
  timestampFromDate,
  type MessageInitShape,
} from '@underdog/proto';
import {
  HOUR,
  MINUTE,
  actors,
  inFuture,
  logger,
  startHarness,
  timestampAt,
  waitFor,
  type Harness,
} from './support';

const SECRET = 'test-fair-play-secret';
const IMAGES = (round: number) => [0, 1, 2, 3].map((m) => `round-${round}-image-${m}`);

/*
 * Issue 28, points 1–2: the tournament service folds `fair-play.signals`, `game.votes` and the
 * rounds of `game.events` into the fair-play report, answered by GetFairPlayReport (admin only).
 * A ring of 8 made within minutes in one browser on one home network, splitting its votes over
 * the four images, among 16 honest players each on their own network.
 */
describe('the fair-play report', () => {
  let h: Harness;
  let tournamentId: string;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    h = await startHarness();
    const startAt = inFuture(h.clock, HOUR);
    const { tournament } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Ring night',
      startAt: timestampAt(startAt),
    });
    tournamentId = tournament!.id;
    const names = new Set([
      'game-events-consumer',
      'fair-play-signals-consumer',
      'fair-play-votes-consumer',
    ]);
    const group = new ComponentGroup(
      logger,
      h.module.components.filter((c) => names.has(c.name)),
    );
    await group.start();
    stop = () => group.stop();
  });
  afterEach(async () => {
    await stop();
    await h.stop();
  });

  type SignalKind = MessageInitShape<typeof FairPlaySignalSchema>['kind'];
  async function signal(
    userId: string,
    at: Date,
    kind: SignalKind,
    who: { ip: string; ua: string; device: string },
  ) {
    const event = create(FairPlaySignalSchema, {
      userId,
      occurredAt: timestampFromDate(at),
      deviceId: who.device,
      addressPrefix: addressPrefixHash(who.ip, SECRET),
      userAgent: userAgentHash(who.ua, SECRET),
      kind,
    });
    await h.infrastructure.bus.publish(topics.fairPlaySignals.name, [
      encodeEvent(FairPlaySignalSchema, event, { key: userId }),
    ]);
  }
  async function vote(
    userId: string,
    round: number,
    imageId: string,
    castAt: Date,
    voteId: string,
  ) {
    const event = create(GameVoteEventSchema, {
      tournamentId,
      kind: {
        case: 'voteCast',
        value: {
          voteId,
          gameId: 'g',
          userId,
          username: `name-${userId}`,
          roundNumber: round,
          imageId,
          castAt: timestampFromDate(castAt),
          deviceId: `dev-${userId}`,
        },
      },
    });
    await h.infrastructure.bus.publish(topics.gameVotes.name, [
      encodeEvent(GameVoteEventSchema, event, { key: tournamentId, id: voteId }),
    ]);
  }
  async function roundStarted(round: number) {
    const event = create(GameEventSchema, {
      tournamentId,
      gameId: 'g',
      kind: {
        case: 'roundVotingStarted',
        value: { roundNumber: round, images: IMAGES(round).map((id) => ({ id })) },
      },
    });
    await h.infrastructure.bus.publish(topics.gameEvents.name, [
      encodeEvent(GameEventSchema, event, { key: tournamentId, id: `g:round:${round}` }),
    ]);
  }

  const ring = Array.from({ length: 8 }, (_, i) => `ring-${i}`);
  const honest = Array.from({ length: 16 }, (_, i) => `honest-${i}`);

  async function playSmallGame() {
    const evening = new Date(h.clock.now().getTime() - 30 * 24 * HOUR);
    for (const [i, userId] of ring.entries()) {
      const who = { ip: `203.0.113.${10 + i}`, ua: 'Mozilla/5.0 Ring', device: `ring-device-${i}` };
      await signal(
        userId,
        new Date(evening.getTime() + i * MINUTE),
        { case: 'registered', value: {} },
        who,
      );
      await signal(userId, h.clock.now(), { case: 'joined', value: { tournamentId } }, who);
    }
    for (const [i, userId] of honest.entries()) {
      const who = {
        ip: `198.51.${i}.7`,
        ua: `Mozilla/5.0 Browser ${i % 5}`,
        device: `d-${userId}`,
      };
      await signal(
        userId,
        new Date(evening.getTime() - (i + 1) * 24 * HOUR),
        { case: 'registered', value: {} },
        who,
      );
      await signal(userId, h.clock.now(), { case: 'joined', value: { tournamentId } }, who);
    }
    for (let round = 1; round <= 3; round += 1) {
      await roundStarted(round);
      const start = h.clock.now().getTime() + round * MINUTE;
      for (const [i, userId] of ring.entries()) {
        await vote(
          userId,
          round,
          IMAGES(round)[i % 4]!,
          new Date(start + 1_000 + i * 40),
          `v-${round}-${userId}`,
        );
      }
      for (const [i, userId] of honest.entries()) {
        await vote(
          userId,
          round,
          IMAGES(round)[(i * 7 + round) % 3]!,
          new Date(start + 2_000 + i * 1_300),
          `v-${round}-${userId}`,
        );
      }
    }
  }

  const report = async () =>
    (await h.client.getFairPlayReport({ actor: actors.admin(), tournamentId })).report!;

  it('flags the ring (all 8) and no honest player, with the evidence that made it', async () => {
    await playSmallGame();
    await waitFor(
      async () => (await report()).roundCount === 3 && (await report()).participantCount === 24,
    );
    const answer = await report();
    expect(answer.final).toBe(false);
    expect(answer.usernames['ring-3']).toBe('name-ring-3');
    expect(answer.flaggedUserIds).toEqual([...ring].sort());
    const cluster = answer.clusters.find((c) => c.flagged)!;
    expect(cluster.memberUserIds).toEqual([...ring].sort());
    expect(cluster.score).toBeGreaterThanOrEqual(0.5);
    const kinds = cluster.evidence.map((e) => e.kind);
    expect(kinds).toContain('sharedAddressPrefix');
    expect(kinds).toContain('registrationBurst');
    expect(kinds).toContain('coveringVotes');
    expect(cluster.evidence.every((e) => e.text.length > 0)).toBe(true);
    console.log(
      `fair-play report: ${answer.participantCount} participants, ${answer.roundCount} rounds, ` +
        `${answer.clusters.length} cluster(s), flagged ${answer.flaggedUserIds.length}: ` +
        `score ${cluster.score.toFixed(3)} (identity ${cluster.identitySurprise.toFixed(2)}, play ${cluster.playSurprise.toFixed(2)})`,
    );
  });

  it('counts a redelivered vote once and is final once the game ended', async () => {
    await playSmallGame();
    await vote('ring-0', 1, IMAGES(1)[3]!, h.clock.now(), 'v-1-ring-0'); // the same vote id again
    await waitFor(async () => (await report()).roundCount === 3);
    h.clock.set(inFuture(h.clock, 2 * HOUR));
    await h.module.scheduler.startDueTournaments();
    await h.infrastructure.bus.publish(topics.gameEvents.name, [
      encodeEvent(
        GameEventSchema,
        create(GameEventSchema, {
          tournamentId,
          gameId: 'g',
          kind: {
            case: 'gameEnded',
            value: { winnerUserId: 'ring-0', roundsPlayed: 3, decidedBy: 'last_standing' },
          },
        }),
        { key: tournamentId, id: 'g:end' },
      ),
    ]);
    await waitFor(async () => (await report()).final);
    expect((await report()).flaggedUserIds).toEqual([...ring].sort());
  });

  it('is for admins only, and an unknown tournament is not found', async () => {
    await expect(
      h.client.getFairPlayReport({ actor: actors.user(), tournamentId }),
    ).rejects.toMatchObject({
      code: 7, // PERMISSION_DENIED
    });
    await expect(h.client.getFairPlayReport({ tournamentId })).rejects.toMatchObject({ code: 16 });
    await expect(
      h.client.getFairPlayReport({ actor: actors.admin(), tournamentId: 'nope' }),
    ).rejects.toMatchObject({ code: 5 });
  });
});
