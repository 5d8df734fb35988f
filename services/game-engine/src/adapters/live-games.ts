// Over 300 lines: one class, the engine's one port onto the live-game store, a method a step.
import {
  ACTIVE_GAMES_KEY,
  acquireLease,
  advanceGame,
  allSlotKeys,
  applyVote,
  createGame,
  disqualifications,
  disqualifiedKey,
  eliminate,
  gameKeys,
  joinGame,
  parseGameState,
  playerSlotKeys,
  raiseMark,
  releaseLease,
  votesProgressKey,
  voteSlotsFrom,
  VOTE_SLOTS_FIELD,
  type GameState,
  type StoredBallot,
  type StoredDisqualification,
  type StoredPhase,
  type StoredPlayer,
} from '@underdog/live-game';
import type { LiveStore } from '@underdog/store';
import {
  roundCloseField,
  roundFactsField,
  storedBallotOf,
  type AppliedMark,
  type ApplyReply,
  type Expectation,
  type JoinReply,
  type Participant,
  type RoundClose,
  type RoundFacts,
  type TournamentFacts,
  type VoteToApply,
} from './live-games-shapes';
import { acknowledgedEnds, ballotImagesOf, heldVotes, tallies } from './slot-reads';

/** The shapes of its answers and arguments, where the engine's importers find them. */
export * from './live-games-shapes';

/** The engine's side of the live-game store: every read and atomic step it uses. */
export class LiveGames {
  constructor(private readonly store: LiveStore) {}

  async state(tournamentId: string): Promise<GameState | undefined> {
    return parseGameState(await this.store.hGetAll(gameKeys(tournamentId).state));
  }

  /** Tournament facts from `tournament.lifecycle`; a running game keeps its round time and start. */
  async recordTournament(facts: TournamentFacts): Promise<void> {
    const key = gameKeys(facts.id).state;
    const gameId = await this.store.hGet(key, 'gameId');
    const texts = { title: facts.title, prize: facts.prize ?? '' };
    if (gameId) {
      await this.store.hSet(key, texts);
      return;
    }
    await this.store.hSet(key, {
      ...texts,
      tournamentStatus: 'upcoming',
      startAt: facts.startAt.getTime(),
      roundTimeSeconds: facts.roundTimeSeconds,
    });
  }

  /** A deleted tournament (never live) leaves nothing behind. */
  async forgetTournament(tournamentId: string): Promise<void> {
    const keys = gameKeys(tournamentId);
    if (await this.store.hGet(keys.state, 'gameId')) return;
    await this.store.del(
      keys.state,
      keys.players,
      keys.offline,
      keys.devices,
      keys.alive,
      disqualifiedKey(tournamentId),
    );
  }

  async join(
    tournamentId: string,
    player: { userId: string; username: string; deviceId: string; now: number },
    offlineChoices?: string,
  ): Promise<JoinReply> {
    const keys = gameKeys(tournamentId);
    const stored: StoredPlayer = { username: player.username, joinedAt: player.now };
    return (await this.store.run(
      joinGame,
      [keys.state, keys.players, keys.devices, keys.offline, keys.alive],
      [
        player.userId,
        JSON.stringify(stored),
        player.deviceId,
        player.now,
        offlineChoices === undefined ? 'live' : 'offline',
        offlineChoices ?? '',
      ],
    )) as JoinReply;
  }

  /**
   * Creates the game (idempotent) with its vote slots K (docs/adr/0012), fixed from then on; the
   * answer says whether this call created it.
   */
  async createGame(
    tournamentId: string,
    gameId: string,
    now: number,
    totalRounds: number,
    voteSlots = 1,
  ): Promise<{ created: boolean; gameId: string }> {
    const keys = gameKeys(tournamentId);
    const reply = await this.store.run(
      createGame,
      [keys.state, keys.players, keys.alive],
      [gameId, now, totalRounds, voteSlots],
    );
    const [outcome = '', id = ''] = reply.split(/:(.*)/s);
    return { created: outcome === 'CREATED', gameId: id };
  }

  async acquireLease(tournamentId: string, owner: string, ttlMs: number): Promise<number> {
    const keys = gameKeys(tournamentId);
    return this.store.run(acquireLease, [keys.lease, keys.state], [owner, ttlMs]);
  }

  async releaseLease(tournamentId: string, owner: string, token: number): Promise<void> {
    await this.store.run(releaseLease, [gameKeys(tournamentId).lease], [owner, token]);
  }

  /** A fenced step: 'OK', 'FENCED' (another replica holds the game) or 'STALE' (moved on). */
  async advance(
    tournamentId: string,
    token: number,
    expected: Expectation,
    fields: Record<string, string | number>,
  ): Promise<'OK' | 'FENCED' | 'STALE'> {
    const keys = gameKeys(tournamentId);
    const pairs = Object.entries(fields).flatMap(([field, value]) => [field, String(value)]);
    return (await this.store.run(
      advanceGame,
      [keys.state, keys.alive, keys.eliminated],
      [
        token,
        expected === '*' ? '*' : expected.phase,
        expected === '*' ? '' : expected.round,
        pairs.length / 2,
        ...pairs,
        0,
      ],
    )) as 'OK' | 'FENCED' | 'STALE';
  }

  /**
   * Round `at.round`'s eliminations, fenced like `advance` on the step the game stands `at`, in
   * steps of at most 10,000 ids (`eliminate` in @underdog/live-game); idempotent, so a replica
   * that takes over may send the same players out again.
   */
  eliminate(
    tournamentId: string,
    token: number,
    at: { phase: StoredPhase; round: number },
    userIds: readonly string[],
  ): Promise<'OK' | 'FENCED' | 'STALE'> {
    return eliminate(this.store, tournamentId, { token, ...at }, { round: at.round, userIds });
  }

  /** The round close under way (see `RoundClose`), if any. */
  async roundClose(tournamentId: string): Promise<RoundClose | undefined> {
    const json = await this.store.hGet(gameKeys(tournamentId).state, roundCloseField);
    return json ? (JSON.parse(json) as RoundClose) : undefined;
  }

  /**
   * Applies a vote in its player's slot of a game of `voteSlots` slots; with `mark`, raises the
   * applied mark of its `game.votes` partition in the same atomic step (see `applyVote` in
   * @underdog/live-game).
   */
  async applyVote(vote: VoteToApply, mark?: AppliedMark, voteSlots = 1): Promise<ApplyReply> {
    const keys = gameKeys(vote.tournamentId);
    const slot = playerSlotKeys(vote.tournamentId, vote.userId, voteSlots);
    const round = vote.roundNumber;
    const ballot = storedBallotOf(vote);
    return (await this.store.run(
      applyVote,
      [
        keys.state,
        keys.alive,
        slot.ballots(round),
        slot.tally(round),
        slot.voteIds(round),
        slot.reserved(round),
        ...(mark ? [votesProgressKey(mark.partition)] : []),
      ],
      [
        vote.gameId,
        vote.voteId,
        vote.userId,
        round,
        vote.imageId,
        vote.castAt,
        JSON.stringify(ballot),
        ...(mark ? [mark.next, mark.after] : []),
      ],
    )) as ApplyReply;
  }

  /** What the fenced tally step stored about round N for the records (see `roundFactsField`). */
  async roundFacts(tournamentId: string, round: number): Promise<RoundFacts | undefined> {
    const json = await this.store.hGet(gameKeys(tournamentId).state, roundFactsField(round));
    return json === null ? undefined : (JSON.parse(json) as RoundFacts);
  }

  /**
   * Round N's ballots by user id, from each of the game's `voteSlots` slots in turn, read in steps
   * of at most 10,000 (HSCAN).
   */
  async ballots(
    tournamentId: string,
    round: number,
    voteSlots = 1,
  ): Promise<Map<string, StoredBallot>> {
    const ballots = new Map<string, StoredBallot>();
    for (const slot of allSlotKeys(tournamentId, voteSlots)) {
      for await (const chunk of this.store.hScan(slot.ballots(round))) {
        for (const [userId, json] of chunk) ballots.set(userId, JSON.parse(json) as StoredBallot);
      }
    }
    return ballots;
  }

  /**
   * The game's vote slots K once it exists (`createGame` stores them); undefined before, since a
   * game created later may have several.
   */
  async voteSlots(tournamentId: string): Promise<number | undefined> {
    const field = await this.store.hGet(gameKeys(tournamentId).state, VOTE_SLOTS_FIELD);
    return field === null ? undefined : voteSlotsFrom(field);
  }

  /**
   * The players still in, chunk by chunk (SSCAN steps of at most 10,000): a close that works on
   * one chunk at a time never holds the whole audience nor blocks the event loop with it.
   */
  aliveInChunks(tournamentId: string): AsyncIterable<string[]> {
    return this.store.sScan(gameKeys(tournamentId).alive);
  }

  /** The image each of `userIds` voted in `round`, for those who voted (`slot-reads.ts`). */
  ballotImagesOf(
    tournamentId: string,
    round: number,
    voteSlots: number,
    userIds: readonly string[],
  ): Promise<Map<string, string>> {
    return ballotImagesOf(this.store, tournamentId, round, voteSlots, userIds);
  }

  /** Round `round`'s votes per image over the game's K slots (`slot-reads.ts`). */
  tallies(tournamentId: string, round: number, voteSlots: number): Promise<Map<string, number>> {
    return tallies(this.store, tournamentId, round, voteSlots);
  }

  /** The players still in, read in steps of at most 10,000 (SSCAN). */
  async alive(tournamentId: string): Promise<string[]> {
    const alive: string[] = [];
    for await (const chunk of this.store.sScan(gameKeys(tournamentId).alive)) {
      for (const userId of chunk) alive.push(userId);
    }
    return alive;
  }

  /** How many players are still in (SCARD: no member read). */
  aliveCount(tournamentId: string): Promise<number> {
    return this.store.sCard(gameKeys(tournamentId).alive);
  }

  /** The players eliminated in `round`, read in steps of at most 10,000 (HSCAN). */
  async eliminatedIn(tournamentId: string, round: number): Promise<string[]> {
    const eliminated: string[] = [];
    for await (const chunk of this.store.hScan(gameKeys(tournamentId).eliminated)) {
      for (const [userId, inRound] of chunk) if (inRound === String(round)) eliminated.push(userId);
    }
    return eliminated.sort();
  }

  async participants(tournamentId: string): Promise<Participant[]> {
    const keys = gameKeys(tournamentId);
    const [players, offline, eliminated, disqualified] = await Promise.all([
      this.hash(keys.players),
      this.hash(keys.offline),
      this.hash(keys.eliminated),
      this.disqualifications(tournamentId),
    ]);
    return [...players].map(([userId, json]) => ({
      userId,
      ...(JSON.parse(json) as StoredPlayer),
      offlineChoices: offline.get(userId),
      eliminatedInRound: Number(eliminated.get(userId) ?? 0),
      disqualificationReason: disqualified.get(userId)?.reason,
    }));
  }

  /** A hash that grows with the audience, read in steps of at most 10,000 (HSCAN). */
  private async hash(key: string): Promise<Map<string, string>> {
    const hash = new Map<string, string>();
    for await (const chunk of this.store.hScan(key)) {
      for (const [field, value] of chunk) hash.set(field, value);
    }
    return hash;
  }

  /** The game's disqualifications by administrators, by user id (issue 28). */
  disqualifications(tournamentId: string): Promise<Map<string, StoredDisqualification>> {
    return disqualifications(this.store, tournamentId);
  }

  /** The offline players' choices by user id, read in steps of at most 10,000 (HSCAN). */
  offlineChoices(tournamentId: string): Promise<Map<string, string>> {
    return this.hash(gameKeys(tournamentId).offline);
  }

  async player(tournamentId: string, userId: string): Promise<StoredPlayer | undefined> {
    const json = await this.store.hGet(gameKeys(tournamentId).players, userId);
    return json === null ? undefined : (JSON.parse(json) as StoredPlayer);
  }

  async activeGames(): Promise<string[]> {
    return this.store.sMembers(ACTIVE_GAMES_KEY);
  }

  async markActive(tournamentId: string): Promise<void> {
    await this.store.sAdd(ACTIVE_GAMES_KEY, tournamentId);
  }

  async markInactive(tournamentId: string): Promise<void> {
    await this.store.sRem(ACTIVE_GAMES_KEY, tournamentId);
  }

  /** Where round N's acknowledged votes end on each votes partition (`slot-reads.ts`). */
  acknowledgedEnds(
    tournamentId: string,
    round: number,
    voteSlots = 1,
  ): Promise<Map<number, bigint | 'unknown'>> {
    return acknowledgedEnds(this.store, tournamentId, round, voteSlots);
  }

  /** How many players of round N hold a vote cast in time, not recorded yet (`slot-reads.ts`). */
  heldVotes(tournamentId: string, round: number, voteSlots = 1): Promise<number> {
    return heldVotes(this.store, tournamentId, round, voteSlots);
  }

  /** The next offset of a `game.votes` partition still to apply (0 when nothing was). */
  async votesApplied(partition: number): Promise<bigint> {
    return BigInt((await this.store.get(votesProgressKey(partition))) ?? 0);
  }

  /** Raises the applied mark of a `game.votes` partition (see `AppliedMark`). */
  async raiseVotesApplied({ partition, next, after }: AppliedMark): Promise<void> {
    await this.store.run(raiseMark, [votesProgressKey(partition)], [next, after]);
  }
}
