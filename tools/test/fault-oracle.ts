// The fault suite's oracle (issue 38, 1): what one voting round's history — every answer the
// players got, the engine's tally, the game's records and the `game.votes` log — must agree on.
// Pure, apart from `readVotesLog`, so every judgement is made on data the suite printed.
import { randomUUID } from 'node:crypto';
import { createKafkaBus, DEAD_LETTER_HEADERS } from '@underdog/bus';
import { createLogger } from '@underdog/kit';
import { topics } from '@underdog/platform';
import { GameVoteEventSchema, fromBinary } from '@underdog/proto';
import { RETRYABLE_VOTE_CODES } from '@underdog/rules';
import { waitFor } from '@underdog/test-support';
import type { RoundVote } from './fault-players';

/** One vote message of `game.votes`, as the gateway produced it. */
export interface LoggedVote {
  voteId: string;
  gameId: string;
  username: string;
  roundNumber: number;
  imageId: string;
  offset: string;
}

/** What one voting round left behind, as the suite gathered it. */
export interface RoundHistory {
  round: number;
  /** Each player's vote of the round and every attempt's answer (the client's history). */
  votes: Map<string, RoundVote>;
  /**
   * The engine's tally per image: the counts `applyVote` keeps in the live store
   * (`game:{id}:rN:tally`, read after the game); none if unread.
   */
  tally: Record<string, number> | undefined;
  /** The round's results per image, as `results_started` told the players; none if not seen. */
  shown: Record<string, number> | undefined;
  /** The game's records of the round: one vote per counted ballot; none without records. */
  records: Array<{ username: string; imageId: string }> | undefined;
  /** The round's messages on `game.votes` (every one, resends and withdrawn votes included). */
  log: LoggedVote[];
  /**
   * The players still in the game at the round's start (the ones who may vote), when known:
   * every player in round 1, the voters of a winning image of the round before after it.
   */
  eligible: ReadonlySet<string> | undefined;
}

/** One round's verdict: each figure the acceptance wants at 0 (or, for availability, ≥ 99 %). */
export interface RoundVerdict {
  acknowledged: number;
  counted: number;
  /** Acknowledged, not in the records. */
  lost: number;
  /** Players with more than one record (records are keyed per player: a bug elsewhere). */
  doubledInRecords: number;
  /**
   * How far the counts go beyond the log (0 when they do not): per image, the tally and the
   * records above the number of players with a message for that image on `game.votes`, plus
   * each counted ballot whose player has no message for its image. A tally counting one
   * message twice shows here, whatever the records say.
   */
  doubledByLog: number;
  /** Told a refusal (a final one, or a retryable one the client gave up on), yet counted. */
  refusedButCounted: number;
  /**
   * Images whose tally, shown result, records count and acknowledged count are not all equal:
   * every acknowledged vote counted, and every counted vote acknowledged to its player.
   */
  tallyDisagreements: string[];
  /** Votes whose answer died with its gateway at least once. */
  indeterminate: number;
  /**
   * Of those, the ones the client's own resend never got a final answer for (acknowledged or
   * refused for good): none, or a retryable one it gave up on.
   */
  unresolved: number;
  /**
   * The votes the round should have acknowledged: one per eligible player (whether it was sent
   * or not); without the eligible players, every vote but those refused by the game's rules.
   */
  wanted: number;
  /** Of those, how many were acknowledged. */
  wantedAcknowledged: number;
  retryableAnswers: number;
  /** Every final answer, by code (`unsent`: not sent before the grace's end). */
  finals: Map<string, number>;
  examples: string[];
}

/**
 * Whether the client was told the vote's fate: acknowledged, or refused for good (the truth of
 * which `lost` and `refusedButCounted` judge), not left without an answer or with a retryable one.
 */
const toldItsFate = (final: string) =>
  final !== 'unknown' && final !== 'unsent' && !RETRYABLE_VOTE_CODES.has(final);
/**
 * Refusals by the game's rules, not by the system's state: not a vote the player could cast
 * (only when the eligible players are not known).
 */
const ruleRefusals = new Set(['ELIMINATED', 'NOT_PARTICIPANT']);

const countBy = <T>(items: T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/** Judges one round; `records` and `tally` undefined make the figures that need them NaN. */
export function judgeRound(history: RoundHistory): RoundVerdict {
  const { round, votes, tally, shown, records, log, eligible } = history;
  const examples: string[] = [];
  const example = (text: string) => {
    if (examples.length < 8) examples.push(text);
  };
  const recorded = records ?? [];
  const countedImage = new Map(recorded.map((vote) => [vote.username, vote.imageId]));
  const verdict: RoundVerdict = {
    acknowledged: 0,
    counted: records ? recorded.length : Number.NaN,
    lost: 0,
    doubledInRecords: [...countBy(recorded, (v) => v.username).values()].filter((n) => n > 1)
      .length,
    doubledByLog: 0,
    refusedButCounted: 0,
    tallyDisagreements: [],
    indeterminate: 0,
    unresolved: 0,
    wanted: eligible ? eligible.size : 0,
    wantedAcknowledged: 0,
    retryableAnswers: 0,
    finals: new Map(),
    examples,
  };

  const acknowledgedImages: string[] = [];
  for (const [username, vote] of votes) {
    const answers = vote.attempts.map((a) => a.answer ?? 'unknown');
    const final = answers.at(-1) ?? 'unsent';
    verdict.finals.set(final, (verdict.finals.get(final) ?? 0) + 1);
    verdict.retryableAnswers += answers.filter((a) => RETRYABLE_VOTE_CODES.has(a)).length;
    if (eligible) {
      if (eligible.has(username) && final === 'ack') verdict.wantedAcknowledged += 1;
    } else if (!ruleRefusals.has(final)) {
      verdict.wanted += 1;
      if (final === 'ack') verdict.wantedAcknowledged += 1;
    }
    const isCounted = countedImage.has(username);
    const history = () => vote.attempts.map((a) => `${a.cause}:${a.answer ?? 'unknown'}`);
    if (answers.includes('unknown')) {
      verdict.indeterminate += 1;
      if (!toldItsFate(final)) {
        verdict.unresolved += 1;
        example(`unresolved: ${username} r${round} ${history().join('>')}`);
      }
    }
    if (final === 'ack') {
      verdict.acknowledged += 1;
      acknowledgedImages.push(vote.imageId);
      if (!isCounted && records) {
        verdict.lost += 1;
        example(`lost: ${username} r${round} ${history().join('>')}`);
      }
    } else if (
      final !== 'unsent' &&
      final !== 'unknown' &&
      final !== 'ALREADY_VOTED' &&
      isCounted
    ) {
      verdict.refusedButCounted += 1;
      example(`refused but counted: ${username} r${round} ${history().join('>')}`);
    }
  }
  if (!records) {
    verdict.lost = Number.NaN;
    verdict.doubledByLog = Number.NaN;
    return verdict;
  }

  // Per image: the engine's tally, the results shown, the records, and what the players were told.
  const recordsPerImage = countBy(recorded, (v) => v.imageId);
  const ackedPerImage = countBy(acknowledgedImages, (image) => image);
  const images = new Set([
    ...Object.keys(tally ?? {}),
    ...Object.keys(shown ?? {}),
    ...recordsPerImage.keys(),
    ...ackedPerImage.keys(),
  ]);
  for (const image of images) {
    const figures = [
      tally?.[image] ?? 0,
      shown?.[image] ?? 0,
      recordsPerImage.get(image) ?? 0,
      ackedPerImage.get(image) ?? 0,
    ];
    if (tally === undefined || shown === undefined || new Set(figures).size > 1) {
      verdict.tallyDisagreements.push(
        `r${round} ${image}: tally ${tally ? figures[0] : 'unread'}, results_started ${shown ? figures[1] : 'not seen'}, records ${figures[2]}, acknowledged ${figures[3]}`,
      );
    }
  }

  // The log: each player counts at most once, for an image one of its messages carried.
  const logged = log.filter((m) => m.roundNumber === round);
  const playersPerImage = new Map<string, Set<string>>();
  for (const message of logged) {
    const players = playersPerImage.get(message.imageId) ?? new Set<string>();
    players.add(message.username);
    playersPerImage.set(message.imageId, players);
  }
  for (const image of images) {
    const inLog = playersPerImage.get(image)?.size ?? 0;
    const beyondTally = Math.max(0, (tally?.[image] ?? 0) - inLog);
    const beyondRecords = Math.max(0, (recordsPerImage.get(image) ?? 0) - inLog);
    if (beyondTally + beyondRecords > 0) {
      example(
        `r${round} ${image}: tally ${tally?.[image] ?? 0}, records ${recordsPerImage.get(image) ?? 0}, players with a message ${inLog}`,
      );
    }
    verdict.doubledByLog += beyondTally + beyondRecords;
  }
  for (const [username, image] of countedImage) {
    if (!playersPerImage.get(image)?.has(username)) {
      verdict.doubledByLog += 1;
      example(`counted without a message: ${username} r${round} ${image}`);
    }
  }
  return verdict;
}

/**
 * Every vote message of the tournament on `game.votes`, read from the topic's start to its end
 * (a consumer group of its own), so doubles are judged against what was produced.
 */
export async function readVotesLog(brokers: string[], tournamentId: string): Promise<LoggedVote[]> {
  const bus = createKafkaBus({
    brokers,
    clientId: 'fault-oracle',
    logger: createLogger({ service: 'fault-oracle', level: 'silent' }),
  });
  const votes: LoggedVote[] = [];
  const readTo = new Map<number, bigint>();
  try {
    const subscription = await bus.subscribe({
      groupId: `fault-oracle-${randomUUID()}`,
      topics: [topics.gameVotes.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          readTo.set(message.partition, BigInt(message.offset));
          if (message.value === null) continue;
          let event;
          try {
            event = fromBinary(GameVoteEventSchema, message.value);
          } catch {
            // Poison (the `poison` scenario's unreadable bytes): no vote, the engine parks it.
            continue;
          }
          if (event.tournamentId !== tournamentId || event.kind.case !== 'voteCast') continue;
          const vote = event.kind.value;
          votes.push({
            voteId: vote.voteId,
            gameId: vote.gameId,
            username: vote.username,
            roundNumber: vote.roundNumber,
            imageId: vote.imageId,
            offset: message.offset,
          });
        }
        return Promise.resolve();
      },
    });
    try {
      for (let partition = 0; partition < topics.gameVotes.partitions; partition += 1) {
        const end = BigInt(await bus.endOffset(topics.gameVotes.name, partition));
        await waitFor(() => end === 0n || (readTo.get(partition) ?? -1n) >= end - 1n, {
          message: `${topics.gameVotes.name}[${partition}] read to its end (${end})`,
          timeoutMs: 60_000,
          intervalMs: 100,
        });
      }
    } finally {
      await subscription.stop();
    }
  } finally {
    await bus.close();
  }
  return votes;
}

/**
 * How many messages keyed by the tournament (`<id>` or `<id>:s<slot>`) `game.votes.dead-letter`
 * holds, read from the topic's start to its end, and their `dead-letter-reason`s.
 */
export async function readParked(brokers: string[], tournamentId: string): Promise<string[]> {
  const bus = createKafkaBus({
    brokers,
    clientId: 'fault-oracle-dead-letters',
    logger: createLogger({ service: 'fault-oracle', level: 'silent' }),
  });
  const topic = topics.gameVotesDeadLetter;
  const reasons: string[] = [];
  const readTo = new Map<number, bigint>();
  try {
    await bus.ensureTopics([topic]);
    const subscription = await bus.subscribe({
      groupId: `fault-oracle-dead-letters-${randomUUID()}`,
      topics: [topic.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          readTo.set(message.partition, BigInt(message.offset));
          if (message.key === tournamentId || message.key.startsWith(`${tournamentId}:`)) {
            reasons.push(message.headers[DEAD_LETTER_HEADERS.reason] ?? '');
          }
        }
        return Promise.resolve();
      },
    });
    try {
      for (let partition = 0; partition < topic.partitions; partition += 1) {
        const end = BigInt(await bus.endOffset(topic.name, partition));
        await waitFor(() => end === 0n || (readTo.get(partition) ?? -1n) >= end - 1n, {
          message: `${topic.name}[${partition}] read to its end (${end})`,
          timeoutMs: 60_000,
          intervalMs: 100,
        });
      }
    } finally {
      await subscription.stop();
    }
  } finally {
    await bus.close();
  }
  return reasons;
}
