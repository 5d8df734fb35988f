import { DuplicateKeyError, type DocumentStore } from '@underdog/documents';
import { drawSeedCommitment } from '@underdog/fair-play';
import {
  DrawCommitmentMismatchError,
  createGameReads,
  createGameRecords,
  type GameRecords,
  type GameReads,
  type GameStartedRecord,
  type ParticipantRecord,
  type RoundResolvedRecord,
} from '../src/persistence';
import {
  gamesCollection,
  participantsCollection,
  roundsCollection,
  votesCollection,
} from '../src/persistence/collections';

export interface RecordsFixture {
  store: DocumentStore;
  cleanup(): Promise<void>;
}

const T0 = new Date('2030-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let sequence = 0;
/** Ids unique per test, so the suite can share one database. */
function ids() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return { gameId: `game-${suffix}`, tournamentId: `tournament-${suffix}` };
}

function player(name: string, isOfflinePlayer = false, joinedAtSecond = 0): ParticipantRecord {
  return { userId: `user-${name}`, username: name, isOfflinePlayer, joinedAt: at(joinedAtSecond) };
}

function images(roundNumber: number) {
  return [0, 1, 2, 3].map((m) => ({
    id: `round-${roundNumber}-image-${m}`,
    url: `/images/sample-${(m + roundNumber) % 8}.jpg`,
    alt: `Sample image ${(m + roundNumber) % 8}`,
  }));
}

function started(
  gameId: string,
  tournamentId: string,
  participants: ParticipantRecord[],
): GameStartedRecord {
  return {
    gameId,
    tournament: { id: tournamentId, title: 'Friday Final', prize: '$5,000', startAt: T0 },
    totalRounds: 17,
    roundTimeSeconds: 15,
    startedAt: T0,
    participants,
  };
}

/** A round where `choices` maps username → image index; the least popular voted image wins. */
function round(
  gameId: string,
  roundNumber: number,
  remaining: ParticipantRecord[],
  choices: Record<string, number>,
): RoundResolvedRecord {
  const counts = [0, 1, 2, 3].map((m) => Object.values(choices).filter((c) => c === m).length);
  const nonZero = counts.filter((count) => count > 0);
  const least = nonZero.length > 0 ? Math.min(...nonZero) : -1;
  const total = Object.keys(choices).length;
  const start = roundNumber * 30;
  const votes = remaining
    .filter((p) => choices[p.username] !== undefined)
    .map((p, index) => {
      const choice = choices[p.username] ?? 0;
      return {
        userId: p.userId,
        username: p.username,
        imageId: `round-${roundNumber}-image-${choice}`,
        votedAt: at(start + 1 + index),
        isOfflinePlayer: p.isOfflinePlayer,
        isWinningVote: counts[choice] === least,
      };
    });
  const winners = new Set(votes.filter((v) => v.isWinningVote).map((v) => v.userId));
  return {
    gameId,
    roundNumber,
    images: images(roundNumber),
    timeLimit: 15,
    startedAt: at(start),
    endedAt: at(start + 15),
    votes,
    eliminated: remaining.filter((p) => !winners.has(p.userId)).map((p) => ({ userId: p.userId })),
    results: counts.map((count, m) => ({
      imageId: `round-${roundNumber}-image-${m}`,
      votes: count,
      percentage: total === 0 ? 0 : Math.round((count * 100) / total),
      isWinner: count === least,
    })),
  };
}

export function describeGameRecords(name: string, connect: () => Promise<RecordsFixture>) {
  describe(`game records (${name})`, () => {
    let fixture: RecordsFixture;
    let records: GameRecords;
    let reads: GameReads;

    beforeAll(async () => {
      fixture = await connect();
      records = createGameRecords(fixture.store, {
        batchSize: 3,
        insertBatchSize: 3,
        clock: { now: () => T0 },
      });
      reads = createGameReads(fixture.store);
      await fixture.store.init();
    });
    afterAll(async () => fixture.cleanup());

    const ana = player('ana');
    const bo = player('bo');
    const cy = player('cy', true);
    const dee = player('dee');
    const eve = player('eve', true);

    /** Ana and Bo advance from round 1 (image 2 has the fewest votes); Bo misses round 2's vote. */
    async function playToTheEnd(
      gameId: string,
      tournamentId: string,
      repeat = 1,
      drawSeed?: string,
    ) {
      const calls: Array<() => Promise<void>> = [
        () => records.gameStarted(started(gameId, tournamentId, [ana, bo, cy, dee])),
        () => records.participantsJoined(gameId, [eve]),
        () =>
          records.roundResolved(
            round(gameId, 1, [ana, bo, cy, dee, eve], { ana: 2, bo: 2, cy: 0, dee: 0, eve: 0 }),
          ),
        () => records.roundResolved(round(gameId, 2, [ana, bo], { ana: 1 })),
        () =>
          records.gameEnded({
            gameId,
            endedAt: at(100),
            winner: { userId: ana.userId, username: 'ana', prize: '$5,000' },
            ...(drawSeed ? { drawSeed } : {}),
          }),
      ];
      for (const call of calls) {
        for (let time = 0; time < repeat; time += 1) await call();
      }
    }

    it('has no statistics or details for a tournament without a game', async () => {
      const { tournamentId } = ids();
      expect(await reads.statistics(tournamentId)).toBeNull();
      expect(await reads.details(tournamentId)).toBeNull();
    });

    it('records a started game with its participants, online and offline', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted(started(gameId, tournamentId, [ana, bo, cy, dee, eve]));
      const statistics = await reads.statistics(tournamentId);
      expect(statistics).toEqual({
        gameId,
        status: 'live',
        roundsPlayed: 0,
        participantBreakdown: { total: 5, online: 3, offline: 2 },
        winner: null,
        participants: expect.any(Array) as unknown,
        disqualifiedCount: 0,
        draw: { commitment: '', seed: '', order: [] },
      });
      expect(statistics?.participants.map((p) => p.username).sort()).toEqual([
        'ana',
        'bo',
        'cy',
        'dee',
        'eve',
      ]);
      expect(statistics?.participants.every((p) => !p.isEliminated)).toBe(true);
      const game = await fixture.store.collection(gamesCollection).findById(gameId);
      expect(game).toMatchObject({
        tournamentId,
        status: 'live',
        currentRound: 1,
        totalRounds: 17,
        participantCount: 5,
        offlineParticipantCount: 2,
      });
    });

    it('stores a participant whose elimination is known at the start eliminated, and a round leaves it so', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted(
        started(gameId, tournamentId, [ana, { ...bo, eliminatedInRound: 1 }, cy]),
      );
      const eliminated = (await reads.statistics(tournamentId))?.participants
        .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
        .sort();
      expect(eliminated).toEqual(['ana:false:undefined', 'bo:true:1', 'cy:false:undefined']);
      await records.roundResolved(round(gameId, 1, [ana, bo, cy], { ana: 0, bo: 1, cy: 1 }));
      expect(
        (await reads.statistics(tournamentId))?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ana:false:undefined', 'bo:true:1', 'cy:true:1']);
    });

    it('adds late joiners to the game and its participant count', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted(started(gameId, tournamentId, [ana, bo]));
      await records.participantsJoined(gameId, [cy, player('fay', false, 5)]);
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.participantBreakdown).toEqual({ total: 4, online: 3, offline: 1 });
      const game = await fixture.store.collection(gamesCollection).findById(gameId);
      expect(game?.participantCount).toBe(4);
    });

    it('stores a resolved round: its votes, its eliminations and its images', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted(started(gameId, tournamentId, [ana, bo, cy, dee, eve]));
      await records.roundResolved(
        round(gameId, 1, [ana, bo, cy, dee, eve], { ana: 2, bo: 2, cy: 0, dee: 0, eve: 0 }),
      );

      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.roundsPlayed).toBe(1);
      expect(
        Object.fromEntries(statistics?.participants.map((p) => [p.username, p.isEliminated]) ?? []),
      ).toEqual({ ana: false, bo: false, cy: true, dee: true, eve: true });

      const details = await reads.details(tournamentId);
      expect(details?.rounds).toHaveLength(1);
      const [first] = details?.rounds ?? [];
      expect(first?.roundNumber).toBe(1);
      expect(first?.images).toEqual(images(1));
      expect(first?.votes).toEqual([
        { username: 'ana', imageId: 'round-1-image-2', votedAt: at(31), isOfflinePlayer: false },
        { username: 'bo', imageId: 'round-1-image-2', votedAt: at(32), isOfflinePlayer: false },
        { username: 'cy', imageId: 'round-1-image-0', votedAt: at(33), isOfflinePlayer: true },
        { username: 'dee', imageId: 'round-1-image-0', votedAt: at(34), isOfflinePlayer: false },
        { username: 'eve', imageId: 'round-1-image-0', votedAt: at(35), isOfflinePlayer: true },
      ]);
      expect(first?.eliminatedPlayers).toEqual([
        { username: 'cy', isOfflinePlayer: true },
        { username: 'dee', isOfflinePlayer: false },
        { username: 'eve', isOfflinePlayer: true },
      ]);

      const votes = await fixture.store.collection(votesCollection).find({ gameId });
      expect(
        votes
          .filter((v) => v.isWinningVote)
          .map((v) => v.username)
          .sort(),
      ).toEqual(['ana', 'bo']);
      const stored = await fixture.store.collection(roundsCollection).find({ gameId });
      expect(stored).toEqual([
        expect.objectContaining({
          roundNumber: 1,
          status: 'finished',
          timeLimit: 15,
          totalVotes: 5,
          eliminatedCount: 3,
          results: [
            { imageId: 'round-1-image-0', votes: 3, percentage: 60, isWinner: false },
            { imageId: 'round-1-image-1', votes: 0, percentage: 0, isWinner: false },
            { imageId: 'round-1-image-2', votes: 2, percentage: 40, isWinner: true },
            { imageId: 'round-1-image-3', votes: 0, percentage: 0, isWinner: false },
          ],
        }),
      ]);
    });

    it('records the winner: statistics, history and details agree', async () => {
      const { gameId, tournamentId } = ids();
      await playToTheEnd(gameId, tournamentId);

      const statistics = await reads.statistics(tournamentId);
      expect(statistics).toMatchObject({
        status: 'finished',
        roundsPlayed: 2,
        participantBreakdown: { total: 5, online: 3, offline: 2 },
        winner: { username: 'ana' },
      });
      expect(statistics?.participants.filter((p) => !p.isEliminated)).toEqual([
        { username: 'ana', isEliminated: false, isOfflinePlayer: false },
      ]);
      expect(statistics?.participants.find((p) => p.username === 'bo')).toEqual({
        username: 'bo',
        isEliminated: true,
        eliminatedInRound: 2,
        isOfflinePlayer: false,
      });

      const entry = (await reads.history()).find((item) => item.gameId === gameId);
      expect(entry).toEqual({
        gameId,
        tournament: { id: tournamentId, title: 'Friday Final', prize: '$5,000', startAt: T0 },
        winner: { username: 'ana' },
        totalPlayers: 5,
        roundsPlayed: 2,
        endedAt: at(100),
      });

      const details = await reads.details(tournamentId);
      expect(details).toMatchObject({
        status: 'finished',
        winner: { username: 'ana' },
        totalPlayers: 5,
      });
      expect(details?.rounds.map((r) => [r.roundNumber, r.votes.length])).toEqual([
        [1, 5],
        [2, 1],
      ]);
      expect(details?.rounds[1]?.eliminatedPlayers).toEqual([
        { username: 'bo', isOfflinePlayer: false },
      ]);
      const game = await fixture.store.collection(gamesCollection).findById(gameId);
      expect(game).toMatchObject({
        winnerId: ana.userId,
        winnerPrize: '$5,000',
        currentRound: 2,
        endedAt: at(100),
      });
    });

    it('ends the same whatever call is repeated (a replica taking over repeats them)', async () => {
      const once = ids();
      const twice = ids();
      await playToTheEnd(once.gameId, once.tournamentId, 1);
      await playToTheEnd(twice.gameId, twice.tournamentId, 2);

      const strip = <T extends { gameId: string }>(value: T | null) => {
        const copy = { ...value } as Partial<T>;
        delete copy.gameId;
        return copy;
      };
      expect(strip(await reads.statistics(twice.tournamentId))).toEqual(
        strip(await reads.statistics(once.tournamentId)),
      );
      expect(strip(await reads.details(twice.tournamentId))).toMatchObject({
        ...strip(await reads.details(once.tournamentId)),
        tournament: expect.objectContaining({ id: twice.tournamentId }) as unknown,
      });
      const count = async (gameId: string) => [
        await fixture.store.collection(participantsCollection).count({ gameId }),
        await fixture.store.collection(roundsCollection).count({ gameId }),
        await fixture.store.collection(votesCollection).count({ gameId }),
      ];
      expect(await count(twice.gameId)).toEqual([5, 2, 6]);
      expect(await count(once.gameId)).toEqual([5, 2, 6]);
    });

    it('completes a round whose votes were half written before a crash', async () => {
      const { gameId, tournamentId } = ids();
      const everyone = [ana, bo, cy, dee, eve];
      await records.gameStarted(started(gameId, tournamentId, everyone));
      const resolved = round(gameId, 1, everyone, { ana: 2, bo: 2, cy: 0, dee: 0, eve: 0 });
      // The crashed replica stored Bo's and Dee's votes and nothing more.
      const half = createGameRecords(fixture.store, { batchSize: 100, insertBatchSize: 100 });
      await half.roundResolved({
        ...resolved,
        votes: resolved.votes.filter((v) => v.username === 'bo' || v.username === 'dee'),
        eliminated: [],
      });
      await fixture.store.collection(roundsCollection).deleteMany({ gameId });

      await records.roundResolved(resolved);

      expect(await fixture.store.collection(votesCollection).count({ gameId })).toBe(5);
      const details = await reads.details(tournamentId);
      expect(details?.rounds[0]?.votes.map((v) => v.username)).toEqual([
        'ana',
        'bo',
        'cy',
        'dee',
        'eve',
      ]);
      expect(details?.rounds[0]?.eliminatedPlayers.map((p) => p.username)).toEqual([
        'cy',
        'dee',
        'eve',
      ]);
    });

    it('records a game without a winner, and history leaves the winner out', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted(started(gameId, tournamentId, [ana, bo]));
      await records.roundResolved(round(gameId, 1, [ana, bo], {}));
      await records.gameEnded({ gameId, endedAt: at(50) });

      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.winner).toBeNull();
      expect(statistics?.participants.every((p) => p.isEliminated)).toBe(true);
      const entry = (await reads.history()).find((item) => item.gameId === gameId);
      expect(entry).toBeDefined();
      expect(entry).not.toHaveProperty('winner');
      expect((await reads.details(tournamentId))?.rounds[0]).toMatchObject({
        votes: [],
        eliminatedPlayers: [
          { username: 'ana', isOfflinePlayer: false },
          { username: 'bo', isOfflinePlayer: false },
        ],
      });
    });

    it('stores the seeded draw among survivors of the last round and eliminates its losers', async () => {
      const { gameId, tournamentId } = ids();
      await records.gameStarted({
        ...started(gameId, tournamentId, [ana, bo, cy]),
        totalRounds: 1,
      });
      await records.roundResolved(round(gameId, 1, [ana, bo, cy], { ana: 1, bo: 2, cy: 3 }));
      const draw = { seed: 'c0ffee', candidateUserIds: [ana.userId, bo.userId, cy.userId] };
      await records.gameEnded({
        gameId,
        endedAt: at(60),
        winner: { userId: bo.userId, username: 'bo' },
        draw: { ...draw, winnerUserId: bo.userId },
      });

      const game = await fixture.store.collection(gamesCollection).findById(gameId);
      expect(game?.draw).toEqual({ ...draw, winnerUserId: bo.userId });
      expect(game).not.toHaveProperty('winnerPrize');
      const statistics = await reads.statistics(tournamentId);
      expect(statistics?.winner).toEqual({ username: 'bo' });
      expect(
        statistics?.participants.map((p) => [p.username, p.isEliminated, p.eliminatedInRound]),
      ).toEqual([
        ['ana', true, 1],
        ['bo', false, undefined],
        ['cy', true, 1],
      ]);
    });

    it('records disqualifications and a winner re-decided after the game (issue 28)', async () => {
      const { gameId, tournamentId } = ids();
      await playToTheEnd(gameId, tournamentId, 1, 'a'.repeat(64));
      // bo, eliminated in round 2, disqualified; twice: the first reason stands.
      await records.participantsDisqualified(gameId, [{ userId: bo.userId, reason: 'ring' }]);
      await records.participantsDisqualified(gameId, [{ userId: bo.userId, reason: 'other' }]);
      const game = await records.finishedGame(tournamentId);
      expect(game).toMatchObject({
        gameId,
        roundsPlayed: 2,
        winnerUserId: ana.userId,
        drawSeed: 'a'.repeat(64),
        draw: undefined,
      });
      expect(game?.participants.find((p) => p.userId === bo.userId)).toMatchObject({
        eliminatedInRound: 2,
        disqualificationReason: 'ring',
      });
      let statistics = await reads.statistics(tournamentId);
      expect(statistics?.disqualifiedCount).toBe(1);
      expect(statistics?.participants.find((p) => p.username === 'bo')).toMatchObject({
        isEliminated: true,
        eliminatedInRound: 2,
        disqualificationReason: 'ring',
      });
      const details = await reads.details(tournamentId);
      expect(details?.rounds[1]?.eliminatedPlayers).toEqual([
        { username: 'bo', isOfflinePlayer: false, disqualificationReason: 'ring' },
      ]);

      // ana (the winner) disqualified: dee takes her place (the next in the order); then no one.
      await records.participantsDisqualified(gameId, [{ userId: ana.userId, reason: 'ring' }]);
      await records.winnerRedecided({
        gameId,
        previousWinnerId: ana.userId,
        lastRound: 2,
        winner: { userId: dee.userId, username: 'dee' },
        order: [ana.userId, dee.userId],
      });
      statistics = await reads.statistics(tournamentId);
      expect(statistics?.winner).toEqual({ username: 'dee' });
      expect(
        statistics?.participants
          .map((p) => `${p.username}:${p.isEliminated}:${p.eliminatedInRound}`)
          .sort(),
      ).toEqual(['ana:true:2', 'bo:true:2', 'cy:true:1', 'dee:false:undefined', 'eve:true:1']);
      expect((await reads.history()).find((entry) => entry.gameId === gameId)?.winner).toEqual({
        username: 'dee',
      });
      // No draw is made again: the records keep the game's as it was (none here).
      expect((await records.finishedGame(tournamentId))?.draw).toBeUndefined();
      await records.winnerRedecided({
        gameId,
        previousWinnerId: dee.userId,
        lastRound: 2,
        winner: undefined,
        order: [ana.userId, dee.userId],
      });
      expect((await records.finishedGame(tournamentId))?.drawOrder).toEqual([
        ana.userId,
        dee.userId,
      ]);
      expect((await reads.statistics(tournamentId))?.winner).toBeNull();
      expect((await records.finishedGame(tournamentId))?.winnerUserId).toBeUndefined();
    });

    it("keeps the draw's commitment from the start, refuses a revealed seed that is not the committed one, and keeps the prize's order (issue 37)", async () => {
      const { gameId, tournamentId } = ids();
      const seed = 'b'.repeat(64);
      const commitment = drawSeedCommitment(seed);
      await records.gameStarted({
        ...started(gameId, tournamentId, [ana, bo]),
        drawCommitment: commitment,
      });
      // Written again (a take-over) with another commitment: the first stays.
      await records.gameStarted({
        ...started(gameId, tournamentId, [ana, bo]),
        drawCommitment: drawSeedCommitment('another'),
      });
      expect((await reads.statistics(tournamentId))?.draw).toEqual({
        commitment,
        seed: '',
        order: [],
      });
      await records.roundResolved(round(gameId, 1, [ana, bo], { ana: 1, bo: 1 }));
      const end = {
        gameId,
        endedAt: at(50),
        winner: { userId: bo.userId, username: 'bo' },
        drawSeed: seed,
        drawOrder: [bo.userId, ana.userId],
      };
      await expect(records.gameEnded({ ...end, drawSeed: 'c'.repeat(64) })).rejects.toThrow(
        DrawCommitmentMismatchError,
      );
      expect((await reads.statistics(tournamentId))?.status).toBe('live');
      await records.gameEnded(end);
      const recorded = { commitment, seed, order: ['bo', 'ana'] };
      expect((await reads.statistics(tournamentId))?.draw).toEqual(recorded);
      expect((await reads.details(tournamentId))?.draw).toEqual(recorded);
      expect(await records.finishedGame(tournamentId)).toMatchObject({
        drawSeed: seed,
        drawOrder: [bo.userId, ana.userId],
      });
    });

    it('lists history with the most recently ended game first', async () => {
      const earlier = ids();
      const later = ids();
      for (const [game, endedAt] of [
        [earlier, at(10_000)],
        [later, at(20_000)],
      ] as const) {
        await records.gameStarted(started(game.gameId, game.tournamentId, [ana]));
        await records.gameEnded({
          gameId: game.gameId,
          endedAt,
          winner: { userId: ana.userId, username: 'ana' },
        });
      }
      const live = ids();
      await records.gameStarted(started(live.gameId, live.tournamentId, [ana]));

      const history = await reads.history();
      const gameIds = history.map((item) => item.gameId);
      expect(gameIds.slice(0, 2)).toEqual([later.gameId, earlier.gameId]);
      expect(gameIds).not.toContain(live.gameId);
      expect(await reads.history({ limit: 1 })).toHaveLength(1);
    });

    it('refuses a second vote by one user in one round and a second row per participant', async () => {
      const votes = fixture.store.collection(votesCollection);
      const vote = {
        gameId: 'g',
        roundId: 'g:1',
        roundNumber: 1,
        userId: 'u',
        username: 'u',
        imageId: 'round-1-image-0',
        isWinningVote: false,
        isOfflinePlayer: false,
        votedAt: T0,
      };
      await votes.insertOne({ id: `unique-${ids().gameId}-a`, ...vote });
      await expect(votes.insertOne({ id: `unique-${ids().gameId}-b`, ...vote })).rejects.toThrow(
        DuplicateKeyError,
      );
      const participants = fixture.store.collection(participantsCollection);
      const row = {
        gameId: 'g',
        userId: 'u',
        username: 'u',
        isEliminated: false,
        isOfflinePlayer: false,
        joinedAt: T0,
      };
      await participants.insertOne({ id: 'p-a', ...row });
      await expect(participants.insertOne({ id: 'p-b', ...row })).rejects.toThrow(
        DuplicateKeyError,
      );
    });
  });
}
