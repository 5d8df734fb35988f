// The fault suite's oracle judges histories it is given: each kind of wrong history it must catch,
// built small (issue 38, 1). The stack runs show it on real faults and mutations
// (docs/reliability.md, "The oracle").
import { judgeRound, type LoggedVote, type RoundHistory } from './fault-oracle';
import type { Attempt, RoundVote } from './fault-players';

const image = (n: number) => `round-1-image-${n}`;

/** A vote of one attempt per answer given, in order. */
function vote(imageNumber: number, ...answers: Array<string | undefined>): RoundVote {
  return {
    imageId: image(imageNumber),
    attempts: answers.map((answer, i): Attempt => ({
      cause: i === 0 ? 'vote' : answers[i - 1] === 'unknown' ? 'resend' : 'retry',
      sentAt: i,
      answer,
    })),
  };
}

/** A round where alice and bob voted image 0 and carol image 1, each acknowledged and counted. */
function cleanRound(): RoundHistory {
  const votes = new Map([
    ['alice', vote(0, 'ack')],
    ['bob', vote(0, 'VOTE_NOT_RECORDED', 'ack')],
    ['carol', vote(1, 'ack')],
  ]);
  const log: LoggedVote[] = [...votes].map(([username, v], i) => ({
    voteId: `vote-${i}`,
    gameId: 'game-1',
    username,
    roundNumber: 1,
    imageId: v.imageId,
    offset: String(i),
  }));
  return {
    round: 1,
    votes,
    tally: { [image(0)]: 2, [image(1)]: 1 },
    shown: { [image(0)]: 2, [image(1)]: 1 },
    records: [...votes].map(([username, v]) => ({ username, imageId: v.imageId })),
    log,
    eligible: new Set([...votes.keys(), 'dave']),
  };
}

const faults = (history: RoundHistory) => {
  const verdict = judgeRound(history);
  return {
    lost: verdict.lost,
    doubledByLog: verdict.doubledByLog,
    refusedButCounted: verdict.refusedButCounted,
    tallyDisagreements: verdict.tallyDisagreements.length,
    unresolved: verdict.unresolved,
  };
};
const none = {
  lost: 0,
  doubledByLog: 0,
  refusedButCounted: 0,
  tallyDisagreements: 0,
  unresolved: 0,
};

it('finds nothing wrong in a round where every answer agrees with the count', () => {
  const verdict = judgeRound(cleanRound());
  expect(faults(cleanRound())).toEqual(none);
  expect([verdict.acknowledged, verdict.counted, verdict.retryableAnswers]).toEqual([3, 3, 1]);
  // dave was still in but sent nothing (his socket down all round): not acknowledged.
  expect([verdict.wantedAcknowledged, verdict.wanted]).toEqual([3, 4]);
});

it('catches a tally that counted a vote twice, though the records are keyed per player', () => {
  const round = cleanRound();
  round.tally = { [image(0)]: 3, [image(1)]: 1 };
  expect(faults(round)).toEqual({ ...none, tallyDisagreements: 1, doubledByLog: 1 });
});

it('catches a counted ballot no message on game.votes carried', () => {
  const round = cleanRound();
  round.log = round.log.filter((message) => message.username !== 'carol');
  expect(faults(round).doubledByLog).toBeGreaterThan(0);
});

it('catches an acknowledged vote the records lack (a dropped vote)', () => {
  const round = cleanRound();
  round.records = round.records!.filter((record) => record.username !== 'alice');
  round.tally = { [image(0)]: 1, [image(1)]: 1 };
  round.shown = { [image(0)]: 1, [image(1)]: 1 };
  expect(faults(round)).toEqual({ ...none, lost: 1, tallyDisagreements: 1 });
});

it('catches a vote counted after the client gave up on a retryable refusal', () => {
  const round = cleanRound();
  round.votes.set('bob', vote(0, 'VOTE_NOT_RECORDED', 'VOTE_NOT_RECORDED'));
  expect(faults(round)).toEqual({ ...none, refusedButCounted: 1, tallyDisagreements: 1 });
});

it('accepts a lost answer resolved by the resend, and catches one left without a fate', () => {
  const resolved = cleanRound();
  resolved.votes.set('carol', vote(1, 'unknown', 'ack'));
  expect(faults(resolved)).toEqual(none);
  expect(judgeRound(resolved).indeterminate).toBe(1);

  const unresolved = cleanRound();
  unresolved.votes.set('carol', vote(1, 'unknown', 'VOTE_NOT_RECORDED'));
  expect(faults(unresolved)).toEqual({
    ...none,
    unresolved: 1,
    refusedButCounted: 1,
    tallyDisagreements: 1,
  });

  const refusedForGood = cleanRound();
  refusedForGood.votes.set('carol', vote(1, 'unknown', 'WRONG_ROUND'));
  expect(faults(refusedForGood)).toEqual({
    ...none,
    refusedButCounted: 1,
    tallyDisagreements: 1,
  });
});
