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
  /** Where a vote came from, and how it says so: on the vote (issue 36) or in a signal of its own. */
  type VoteOrigin = { who: { ip: string; ua: string; device: string }; on: 'vote' | 'signal' };
  async function vote(
    userId: string,
    round: number,
    imageId: string,
    castAt: Date,
    voteId: string,
    origin?: VoteOrigin,
    tid = tournamentId,
  ) {
    const where = origin && {
      deviceId: origin.who.device,
      addressPrefix: addressPrefixHash(origin.who.ip, SECRET),
      userAgent: userAgentHash(origin.who.ua, SECRET),
    };
    const event = create(GameVoteEventSchema, {
      tournamentId: tid,
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
          ...(where && origin?.on === 'vote'
            ? {
                fairPlayDeviceId: where.deviceId,
                fairPlayAddressPrefix: where.addressPrefix,
                fairPlayUserAgent: where.userAgent,
              }
            : {}),
        },
      },
    });
    await h.infrastructure.bus.publish(topics.gameVotes.name, [
      encodeEvent(GameVoteEventSchema, event, { key: tid, id: voteId }),
    ]);
    if (origin?.on === 'signal') {
      const kind = { case: 'voted', value: { tournamentId: tid, roundNumber: round, imageId } };
      await signal(userId, castAt, kind as SignalKind, origin.who);
    }
  }
  async function roundStarted(round: number, tid = tournamentId) {
    const event = create(GameEventSchema, {
      tournamentId: tid,
      gameId: 'g',
      kind: {
        case: 'roundVotingStarted',
        value: { roundNumber: round, images: IMAGES(round).map((id) => ({ id })) },
      },
    });
    await h.infrastructure.bus.publish(topics.gameEvents.name, [
      encodeEvent(GameEventSchema, event, { key: tid, id: `${tid}:round:${round}` }),
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

  it('reads where a vote came from off the vote itself as it read the vote signal before (issue 36)', async () => {
    // One game, played twice: its votes say where they came from on the vote (the gateway since
    // issue 36), or in a signal of their own (gateways before). Half the ring votes from a second
    // line, which only the votes tell: the report must see it either way, and be the same.
    const { tournament: other } = await h.client.createTournament({
      actor: actors.admin(),
      title: 'Ring night, before issue 36',
      startAt: timestampAt(inFuture(h.clock, HOUR)),
    });
    const games = [
      { tid: tournamentId, on: 'vote' as const },
      { tid: other!.id, on: 'signal' as const },
    ];
    const evening = new Date(h.clock.now().getTime() - 30 * 24 * HOUR);
    const home = (i: number) => ({
      ip: `203.0.113.${10 + i}`,
      ua: 'Mozilla/5.0 Ring',
      device: `ring-device-${i}`,
    });
    const playing = (i: number) =>
      i % 2 === 1 ? { ...home(i), ip: `192.0.2.${10 + i}` } : home(i);
    const own = (i: number) => ({
      ip: `198.51.${i}.7`,
      ua: `Mozilla/5.0 Browser ${i % 5}`,
      device: `d-honest-${i}`,
    });
    for (const [i, userId] of ring.entries()) {
      const at = new Date(evening.getTime() + i * MINUTE);
      await signal(userId, at, { case: 'registered', value: {} }, home(i));
    }
    for (const [i, userId] of honest.entries()) {
      const at = new Date(evening.getTime() - (i + 1) * 24 * HOUR);
      await signal(userId, at, { case: 'registered', value: {} }, own(i));
    }
    for (const { tid, on } of games) {
      for (let round = 1; round <= 2; round += 1) {
        await roundStarted(round, tid);
        const start = h.clock.now().getTime() + round * MINUTE;
        for (const [i, userId] of ring.entries()) {
          const at = new Date(start + 1_000 + i * 40);
          const origin = { who: playing(i), on };
          await vote(
            userId,
            round,
            IMAGES(round)[i % 4]!,
            at,
            `${tid}-${round}-${userId}`,
            origin,
            tid,
          );
        }
        for (const [i, userId] of honest.entries()) {
          const at = new Date(start + 2_000 + i * 1_300);
          const image = IMAGES(round)[(i * 7 + round) % 3]!;
          const origin = { who: own(i), on };
          await vote(userId, round, image, at, `${tid}-${round}-${userId}`, origin, tid);
        }
      }
    }
    const reportOf = async (tid: string) =>
      (await h.client.getFairPlayReport({ actor: actors.admin(), tournamentId: tid })).report!;
    const complete = async (tid: string) => {
      const answer = await reportOf(tid);
      return answer.roundCount === 2 && answer.participantCount === 24;
    };
    await waitFor(async () => (await complete(games[0]!.tid)) && (await complete(games[1]!.tid)));
    const [onVote, onSignal] = await Promise.all(games.map(({ tid }) => reportOf(tid)));
    const comparable = (answer: typeof onVote) => ({
      ...answer,
      tournamentId: '',
      computedAt: undefined,
    });
    expect(comparable(onVote!)).toEqual(comparable(onSignal!));
    // The second line (192.0.2.x) is known from the votes alone, and links four of the ring.
    const ringCluster = onVote!.clusters.find((cluster) => cluster.flagged)!;
    const prefixLinks = ringCluster.evidence.filter((e) => e.kind === 'sharedAddressPrefix');
    expect(prefixLinks.map((e) => e.memberUserIds.length).sort()).toEqual([4, 8]);
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
