import { createLogger } from '@underdog/kit';
import { execute, parse, type ExecutionArgs } from 'graphql';
import type { GraphQLContext } from '../src/graphql/context';
import { FastMutations, fastPlanOf } from '../src/graphql/fast-mutations';
import { createSchema } from '../src/graphql/schema';

/**
 * Which documents the graphql-ws fast path answers, and that its answer is graphql-js's own
 * even for what the services never return (a null in a non-null field, a value its scalar
 * refuses); over a real socket: graphql-ws-fast-path.test.ts.
 */
const schema = createSchema();
const castVote = `mutation CastVote($tournamentId: ID!, $roundNumber: Int!, $imageId: ID!) {
  castVote(tournamentId: $tournamentId, roundNumber: $roundNumber, imageId: $imageId) {
    tournamentId
    roundNumber
    imageId
  }
}`;
const joinTournament = `mutation JoinTournament($tournamentId: ID!) {
  joinTournament(tournamentId: $tournamentId) {
    voteImageId
    disqualificationReason
    isParticipant
    eliminatedInRound
  }
}`;

const eligible = (query: string, operationName?: string) =>
  fastPlanOf(schema, parse(query), operationName) !== undefined;

describe('fastPlanOf', () => {
  it('takes the app’s castVote and joinTournament documents', () => {
    expect(eligible(castVote)).toBe(true);
    expect(eligible(joinTournament)).toBe(true);
    expect(eligible(`${castVote}\nquery Other { serverTime }`, 'CastVote')).toBe(true);
  });

  it('takes them as Apollo Client sends them, with __typename (its cache adds it)', () => {
    expect(eligible(castVote.replace('    imageId\n', '    imageId\n    __typename\n'))).toBe(true);
    expect(
      eligible(joinTournament.replace('{\n    voteImageId', '{\n    __typename\n    voteImageId')),
    ).toBe(true);
  });

  it.each([
    ['an alias on the root field', castVote.replace('  castVote(', '  vote: castVote(')],
    ['an alias on a field', castVote.replace('    imageId\n', '    image: imageId\n')],
    ['a directive', castVote.replace('    imageId\n', '    imageId @include(if: true)\n')],
    [
      '__typename twice',
      castVote.replace('    imageId\n', '    imageId\n    __typename\n    __typename\n'),
    ],
    [
      'an alias on __typename',
      castVote.replace('    imageId\n', '    imageId\n    t: __typename\n'),
    ],
    ['a field twice', castVote.replace('    imageId\n', '    imageId\n    imageId\n')],
    [
      'a fragment',
      `${castVote.replace('    imageId\n', '    ...Image\n')}\nfragment Image on VoteReceipt { imageId }`,
    ],
    [
      'an inline fragment',
      castVote.replace('    imageId\n', '    ... on VoteReceipt { imageId }\n'),
    ],
    ['a literal argument', castVote.replace('roundNumber: $roundNumber', 'roundNumber: 1')],
    ['a default value', castVote.replace('$roundNumber: Int!', '$roundNumber: Int! = 1')],
    [
      'two root fields',
      castVote.replace(
        /\n}$/,
        '\n  other: castVote(tournamentId: "t", roundNumber: 1, imageId: "i") { imageId }\n}',
      ),
    ],
    ['another mutation', 'mutation { logout }'],
    ['a query', '{ serverTime }'],
  ])('leaves a document with %s to graphql-js', (_case, query) => {
    expect(eligible(query)).toBe(false);
  });
});

describe('FastMutations answers as graphql-js execute does', () => {
  const logger = createLogger({ service: 'test', level: 'silent' });
  let returned: unknown;
  const services = {
    games: {
      vote: () => Promise.resolve(returned),
      join: () => Promise.resolve(returned),
    },
    signals: { joined: () => undefined },
    logger,
  } as unknown as GraphQLContext;
  const socket = { currentOrigin: () => Promise.resolve({} as GraphQLContext['origin']) };
  const fast = new FastMutations(services, async (from) => ({
    ...services,
    origin: await from.currentOrigin(),
  }));

  async function bothAnswers(query: string, variables: Record<string, unknown>) {
    const document = parse(query);
    const plan = fastPlanOf(schema, document, undefined);
    if (!plan) throw new Error('not eligible');
    fast.plan(document, plan);
    const args: ExecutionArgs = { schema, document, variableValues: variables };
    const answered = await fast.execute({ ...args, contextValue: socket });
    const general = await execute({ ...args, contextValue: { ...services, origin: {} } });
    return { answered: JSON.stringify(answered), general: JSON.stringify(general) };
  }

  const vote = { tournamentId: 't', roundNumber: 1, imageId: 'i' };

  it.each([
    ['a receipt', vote],
    ['a number for an ID (serialised as a string)', { ...vote, imageId: 7 }],
    ['a null in a non-null field', { ...vote, roundNumber: null }],
    ['a value its scalar refuses', { ...vote, roundNumber: 1.5 }],
    ['a value that is an Error', { ...vote, imageId: new Error('broken') }],
    ['no receipt at all', null],
    ['a string for an object', 'receipt'],
  ])('castVote resolving to %s', async (_case, value) => {
    returned = value;
    for (const query of [
      castVote,
      castVote.replace('    imageId\n', '    __typename\n    imageId\n'),
    ]) {
      const { answered, general } = await bothAnswers(query, vote);
      expect(answered).toBe(general);
    }
  });

  it.each([
    ['a player', { isParticipant: true, eliminatedInRound: 2, voteImageId: 'i' }],
    ['a nullable field its scalar refuses, then a null in a non-null one', { voteImageId: {} }],
  ])('joinTournament resolving to %s', async (_case, player) => {
    returned = player;
    const { answered, general } = await bothAnswers(joinTournament, { tournamentId: 't' });
    expect(answered).toBe(general);
  });

  it('answers a failed service as graphql-js does, INTERNAL without its text', async () => {
    services.games.vote = () => Promise.reject(new Error('secret detail'));
    const { answered, general } = await bothAnswers(castVote, vote);
    expect(answered).toBe(general);
    expect(answered).not.toContain('secret detail');
  });
});
