// What the two live scripts (/ws and graphql-ws) share: the options, setup(), the metrics and one
// player's round logic. The protocol-specific part is only how messages are read and written.
import { Counter, Rate, Trend } from 'k6/metrics';
import { serverClockOffset } from './api.js';
import { intEnv, runId, stringEnv, target } from './config.js';
import { joinPlayers, preparePlayers, prepareTournament } from './setup.js';

/** Acknowledgement latency: vote sent → vote_processed / castVote's answer. */
export const voteAck = new Trend('vote_ack_ms', true);
/**
 * Results fan-out: voting end → this player's results message. Voting ends for good when the
 * voting_ended phase does, GRACE_MS (server rules: ≤ 1 s for votes in flight) after the deadline
 * every client is shown; results_after_deadline_ms is the same arrival measured from the deadline.
 */
export const resultsFanout = new Trend('results_fanout_ms', true);
export const resultsAfterDeadline = new Trend('results_after_deadline_ms', true);
const graceMs = intEnv('GRACE_MS', 1000);
export const votesSent = new Counter('votes_sent');
export const votesAcked = new Counter('votes_acked');
export const votesRefused = new Counter('votes_refused');
/** A vote sent and refused or never acknowledged. */
export const voteFailed = new Rate('vote_failed');
/** A player who played a round and got no results for it before giving up. */
export const resultsMissed = new Rate('results_missed');
export const connectFailed = new Rate('ws_connect_failed');
/** The round's total as the results message says it: compared with votes_acked (votes counted). */
export const roundTotalVotes = new Trend('round_total_votes');
export const unexpectedErrors = new Counter('ws_unexpected_errors');

export const settings = {
  players: intEnv('N', 10),
  socketsPerVu: Math.max(1, intEnv('SOCKETS_PER_VU', 50)),
  rampSeconds: intEnv('RAMP', 10),
  rounds: Math.max(1, intEnv('ROUNDS', 1)),
  join: stringEnv('JOIN', 'setup'),
};

export function liveOptions() {
  const vus = Math.ceil(settings.players / settings.socketsPerVu);
  return {
    setupTimeout: stringEnv('SETUP_TIMEOUT', '10m'),
    scenarios: {
      players: {
        executor: 'per-vu-iterations',
        vus,
        iterations: 1,
        maxDuration: stringEnv('MAX_DURATION', '15m'),
      },
    },
    thresholds: {
      vote_ack_ms: [`p(99)<${intEnv('ACK_P99_MS', 250)}`],
      results_fanout_ms: [`p(95)<${intEnv('FANOUT_P95_MS', 1000)}`],
      vote_failed: [`rate<${stringEnv('MAX_ERROR_RATE', '0.01')}`],
      results_missed: [`rate<${stringEnv('MAX_ERROR_RATE', '0.01')}`],
      ws_connect_failed: [`rate<${stringEnv('MAX_ERROR_RATE', '0.01')}`],
    },
    summaryTrendStats: ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max', 'count'],
  };
}

/** Players with sessions, a tournament that starts once every socket is open, everyone joined. */
export function liveSetup() {
  const { http: base } = target();
  const run = runId();
  const players = preparePlayers(base, settings.players, run);
  const tournament = prepareTournament(base, run, settings.rampSeconds + intEnv('START_MARGIN', 5));
  if (settings.join === 'setup') joinPlayers(base, players, tournament.id);
  return { players, tournament, clockOffset: serverClockOffset(base) };
}

/** This VU's players with the delay before each opens its socket (spread evenly over RAMP). */
export function myPlayers(data) {
  const first = (__VU - 1) * settings.socketsPerVu;
  const mine = data.players.slice(first, first + settings.socketsPerVu);
  return mine.map((player, i) => ({
    player,
    index: first + i,
    openAfterMs: (settings.rampSeconds * 1000 * (first + i)) / settings.players,
  }));
}

/** How long a socket stays open at most: until the rounds to play are surely over. */
export function giveUpAtMs(data) {
  const roundSeconds = data.tournament.roundTimeSeconds || 15;
  const start = Math.max(Date.parse(data.tournament.startAt) - data.clockOffset, Date.now());
  return start + settings.rounds * (roundSeconds + intEnv('ROUND_SLACK_SECONDS', 60)) * 1000;
}

/** One player's view of the rounds: when to vote, what to measure, when to stop. */
export class Player {
  constructor(index, clockOffset) {
    this.index = index;
    this.clockOffset = clockOffset;
    this.alive = true;
    this.votes = {}; // round → { imageId, sentAt, acked }
    this.votingEndsAt = {}; // round → server ms
    this.resultsSeen = {};
    this.done = false;
  }

  /** Voting is open for `round`: the image to vote for, or null when this player must not vote. */
  votingOpen(round, images, phaseEndsAt, alreadyVoted) {
    if (phaseEndsAt) this.votingEndsAt[round] = Date.parse(phaseEndsAt);
    if (this.done || !this.alive || round > settings.rounds || this.votes[round] || alreadyVoted)
      return null;
    if (!images || images.length === 0) return null;
    const imageId = images[Math.floor(Math.random() * images.length)].id;
    this.votes[round] = { imageId, sentAt: Date.now(), acked: false };
    votesSent.add(1);
    return imageId;
  }

  /** The pending vote of the earliest unanswered round, if any. */
  pending() {
    for (const round of Object.keys(this.votes)) {
      const vote = this.votes[round];
      if (!vote.acked && !vote.failed) return vote;
    }
    return undefined;
  }

  acked() {
    const vote = this.pending();
    if (!vote) return;
    vote.acked = true;
    voteAck.add(Date.now() - vote.sentAt);
    votesAcked.add(1);
    voteFailed.add(false);
  }

  refused(code) {
    const vote = this.pending();
    if (!vote) {
      unexpectedErrors.add(1, { code: String(code) });
      return;
    }
    vote.failed = true;
    votesRefused.add(1, { code: String(code) });
    voteFailed.add(true, { code: String(code) });
  }

  /** A round's results: measures the fan-out; true when this player has nothing left to play. */
  results(round, totalVotes, winningImageIds) {
    if (this.resultsSeen[round]) return this.done;
    this.resultsSeen[round] = true;
    const endsAt = this.votingEndsAt[round];
    if (endsAt !== undefined && this.votes[round]) {
      const afterDeadline = Date.now() + this.clockOffset - endsAt;
      resultsAfterDeadline.add(afterDeadline);
      resultsFanout.add(afterDeadline - graceMs);
      resultsMissed.add(false);
    }
    if (round === 1) roundTotalVotes.add(totalVotes);
    const vote = this.votes[round];
    if (!vote || !vote.acked || !winningImageIds.includes(vote.imageId)) this.alive = false;
    if (!this.alive || round >= settings.rounds) this.done = true;
    return this.done;
  }

  /** The socket is closing: what was never answered counts as failed. */
  finish() {
    for (const round of Object.keys(this.votes)) {
      const vote = this.votes[round];
      if (!vote.acked && !vote.failed) voteFailed.add(true, { code: 'NO_ANSWER' });
      if (!this.resultsSeen[round]) resultsMissed.add(true);
    }
  }
}
