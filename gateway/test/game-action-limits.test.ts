import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
} from './support';

interface GraphQLAnswer {
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/*
 * Issue 37 point 7: castVote and joinTournament are flood-guarded per user on every edge. With
 * a rule of 2 per window, the third call of a signed-in user is refused 429 RATE_LIMITED
 * whatever the first two answered (here the stub engine has no game), and a caller without a
 * session is counted by address.
 */
describe('the flood guard on votes and joins', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { RATE_LIMIT_VOTES_PER_USER: '2', RATE_LIMIT_JOINS_PER_USER: '2' },
    });
  });
  afterAll(() => gateway.stop());

  const graphql = async (query: string, headers: Record<string, string> = {}) => {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { ...jsonHeaders, ...headers },
      body: JSON.stringify({ query }),
    });
    return { response, body: (await response.json()) as GraphQLAnswer };
  };
  const codeOf = (answer: { body: GraphQLAnswer }) => answer.body.errors?.[0]?.extensions?.code;
  const join = 'mutation { joinTournament(tournamentId: "t-1") { isParticipant } }';
  const vote =
    'mutation { castVote(tournamentId: "t-1", roundNumber: 1, imageId: "r1-a") { imageId } }';

  async function signIn(): Promise<string> {
    const { response } = await graphql(
      `mutation { login(email: "ann@example.com", password: "${validPassword}") { id } }`,
    );
    return cookieFrom(response);
  }

  it('refuses a signed-in user’s third join and third vote in the window with 429 RATE_LIMITED', async () => {
    const cookie = await signIn();
    for (const mutation of [join, vote]) {
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await graphql(mutation, { cookie }));
      expect(answers.slice(0, 2).map(codeOf)).not.toContain('RATE_LIMITED');
      expect(codeOf(answers[2]!)).toBe('RATE_LIMITED');
      expect(answers[2]!.response.status).toBe(429);
      expect(Number(answers[2]!.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts a caller without a session by address', async () => {
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await graphql(join));
    expect(answers.slice(0, 2).map(codeOf)).not.toContain('RATE_LIMITED');
    expect(codeOf(answers[2]!)).toBe('RATE_LIMITED');
  });
});
