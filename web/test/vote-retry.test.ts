// The web app's vote retry (issue 29): a vote answered VOTE_NOT_RECORDED or UNAVAILABLE during a
// failover is sent again until a final answer, so that what the player is told agrees with the
// count (a resend is answered with the first vote's fate).
import { ApolloError } from '@apollo/client';
import { GraphQLError } from 'graphql';
import { RETRYABLE_VOTE_CODES, sendVoteRetrying } from '../src/features/game/voteRetry';

const refusal = (code: string) =>
  new ApolloError({ graphQLErrors: [new GraphQLError(code, { extensions: { code } })] });

/** A server that answers the given outcomes in turn, recording each attempt. */
function server(outcomes: Array<string | 'ok'>) {
  const attempts: number[] = [];
  const send = () => {
    attempts.push(attempts.length + 1);
    const outcome = outcomes.shift();
    return outcome === 'ok' || outcome === undefined
      ? Promise.resolve({ imageId: 'round-1-image-2' })
      : Promise.reject(refusal(outcome));
  };
  return { send, attempts };
}

const waits: number[] = [];
const wait = (ms: number) => {
  waits.push(ms);
  return Promise.resolve();
};
beforeEach(() => waits.splice(0));

it('sends a vote answered VOTE_NOT_RECORDED or UNAVAILABLE again until it is acknowledged', async () => {
  const { send, attempts } = server([
    'VOTE_NOT_RECORDED',
    'UNAVAILABLE',
    'VOTE_NOT_RECORDED',
    'ok',
  ]);
  await expect(
    sendVoteRetrying(send, { stillCurrent: () => true, wait, jitter: () => 1 }),
  ).resolves.toEqual({ imageId: 'round-1-image-2' });
  expect(attempts).toHaveLength(4);
  expect(waits).toEqual([250, 500, 1000]);
});

it('ends on a final refusal: the resend answered VOTING_CLOSED is what the player is told', async () => {
  const { send, attempts } = server(['VOTE_NOT_RECORDED', 'VOTING_CLOSED']);
  const answer = sendVoteRetrying(send, { stillCurrent: () => true, wait, jitter: () => 1 });
  await expect(answer).rejects.toMatchObject({ graphQLErrors: [{ message: 'VOTING_CLOSED' }] });
  expect(attempts).toHaveLength(2);
});

it('never retries a refusal that is not retryable', async () => {
  for (const code of ['ALREADY_VOTED', 'ELIMINATED', 'WRONG_ROUND', 'INTERNAL']) {
    expect(RETRYABLE_VOTE_CODES.has(code)).toBe(false);
    const { send, attempts } = server([code]);
    await expect(sendVoteRetrying(send, { stillCurrent: () => true, wait })).rejects.toBeInstanceOf(
      ApolloError,
    );
    expect(attempts).toHaveLength(1);
  }
  expect(waits).toEqual([]);
});

it('stops once the round moved on or the socket dropped, and gives up after its last delay', async () => {
  let current = true;
  const moved = server(['VOTE_NOT_RECORDED', 'ok']);
  const answer = sendVoteRetrying(moved.send, {
    stillCurrent: () => current,
    wait: (ms) => {
      current = false; // the round closed while waiting
      return wait(ms);
    },
  });
  await expect(answer).rejects.toMatchObject({ graphQLErrors: [{ message: 'VOTE_NOT_RECORDED' }] });
  expect(moved.attempts).toHaveLength(1);

  const stuck = server(['VOTE_NOT_RECORDED', 'VOTE_NOT_RECORDED', 'VOTE_NOT_RECORDED']);
  await expect(
    sendVoteRetrying(stuck.send, { stillCurrent: () => true, wait, delaysMs: [10, 10] }),
  ).rejects.toBeInstanceOf(ApolloError);
  expect(stuck.attempts).toHaveLength(3);
});

it('does not retry a network failure: the answer carries no code', async () => {
  let attempts = 0;
  const send = () => {
    attempts += 1;
    return Promise.reject(new ApolloError({ networkError: new Error('socket closed') }));
  };
  await expect(sendVoteRetrying(send, { stillCurrent: () => true, wait })).rejects.toBeInstanceOf(
    ApolloError,
  );
  expect(attempts).toBe(1);
  expect(waits).toEqual([]);
});
