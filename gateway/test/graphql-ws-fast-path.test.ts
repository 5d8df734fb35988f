import { AppError } from '@underdog/kit';
import { gameKeys } from '@underdog/live-game';
import WebSocket from 'ws';
import { appOperations } from '../../load/driver/app-operations';
import { FastMutations } from '../src/graphql/fast-mutations';
import { wsUrlOf } from './realtime-clients';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './support';

/**
 * The web app's `castVote` and `joinTournament` over graphql-ws skip graphql-js `execute`
 * (issue 36, point 3): every answer must be the general path's, byte for byte. Two gateways in
 * front of identical state, one with the fast path and one without (`graphqlFastPath: false`),
 * are sent the same messages; their raw frames must be the same.
 */
/**
 * The app's own documents as its Apollo client sends them: the cache adds `__typename` to every
 * selection (the raw `.graphql` files, without it, are not what a browser sends: the fast path
 * was answering those and not the app's).
 */
const { castVote: castVoteOperation, joinTournament: joinOperation } = appOperations();
const castVote = castVoteOperation.query;
const joinTournament = joinOperation.query;

const OPEN = 'tournament-fast-open';
const CLOSED = 'tournament-fast-closed';

const accounts: Record<string, { userId: string; isEmailVerified: boolean }> = {
  'session-fast-a': { userId: 'user-fast-a', isEmailVerified: true },
  'session-fast-b': { userId: 'user-fast-b', isEmailVerified: true },
  'session-fast-c': { userId: 'user-fast-c', isEmailVerified: true },
  'session-fast-d': { userId: 'user-fast-d', isEmailVerified: true },
  'session-fast-limit': { userId: 'user-fast-limit', isEmailVerified: true },
  'session-fast-out': { userId: 'user-fast-out', isEmailVerified: true },
  'session-fast-unverified': { userId: 'user-fast-unverified', isEmailVerified: false },
};

const options = (fast: boolean, nodeEnv: 'test' | 'production'): TestGatewayOptions => ({
  nodeEnv,
  settings: {
    graphqlFastPath: fast,
    gameActionLimits: {
      vote: { limit: 3, windowMs: 60_000 },
      join: { limit: 30, windowMs: 60_000 },
    },
  },
  auth: {
    getSessionActor: ({ sessionId }) => {
      const account = accounts[sessionId];
      if (!account) {
        throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
      }
      return {
        actor: { ...account, username: account.userId, role: 'user' },
        session: { id: sessionId },
      };
    },
  },
  game: {
    // The engine's answers, as the real one gives them (game-engine's domain errors).
    joinTournament: ({ actor, tournamentId }) => {
      if (!actor?.userId) {
        throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
      }
      if (!actor.isEmailVerified) {
        throw new AppError('FORBIDDEN', 'Please verify your email address first', {
          reason: 'EMAIL_NOT_VERIFIED',
        });
      }
      if (tournamentId === CLOSED) {
        throw new AppError(
          'CONFLICT',
          'Joining is closed: the first round has ended. You can still watch the game.',
          { reason: 'JOIN_CLOSED' },
        );
      }
      if (tournamentId === 'tournament-fast-broken') throw new Error('the engine broke');
      if (tournamentId !== OPEN) {
        throw new AppError('NOT_FOUND', 'Tournament not found', { reason: 'TOURNAMENT_NOT_FOUND' });
      }
      return { player: { isParticipant: true, voteImageId: 'round-1-image-2' } };
    },
  },
});

async function seed(gateway: TestGateway) {
  for (const [tournamentId, deadline] of [
    [OPEN, Date.now() + 120_000],
    [CLOSED, Date.now() - 5_000],
  ] as const) {
    const keys = gameKeys(tournamentId);
    await gateway.store.hSet(keys.state, {
      tournamentStatus: 'live',
      gameId: `game-${tournamentId}`,
      phase: 'voting',
      round: '1',
      votingEndsAt: String(deadline),
    });
    for (const { userId } of Object.values(accounts)) {
      await gateway.store.hSet(keys.players, { [userId]: JSON.stringify({ userId }) });
      if (userId !== 'user-fast-out') await gateway.store.sAdd(keys.alive, userId);
    }
  }
}

/** A graphql-ws socket read frame by frame, as the bytes arrive. */
class RawSocket {
  private readonly frames: string[] = [];
  private wake: (() => void) | undefined;
  private next = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.frames.push(data.toString('utf8'));
      this.wake?.();
    });
  }

  static async open(gateway: TestGateway, sessionId: string | undefined): Promise<RawSocket> {
    const socket = new WebSocket(
      // One device per account: a device plays a tournament with one account only.
      wsUrlOf(gateway.url(`/graphql?deviceId=device-of-${sessionId ?? 'visitor'}`)),
      'graphql-transport-ws',
      {
        headers: {
          origin: gateway.url(''),
          ...(sessionId ? { cookie: `underdog_session=${sessionId}` } : {}),
        },
      },
    );
    const raw = new RawSocket(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'connection_init' }));
    expect(await raw.frame()).toBe('{"type":"connection_ack"}');
    return raw;
  }

  private async frame(): Promise<string> {
    while (this.next >= this.frames.length) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return this.frames[this.next++]!;
  }

  /** The frames answering one operation, up to its `complete` (or its `error`). */
  async operation(id: string, query: string, variables?: unknown): Promise<string[]> {
    this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
    const frames: string[] = [];
    for (;;) {
      const frame = await this.frame();
      frames.push(frame);
      const { type } = JSON.parse(frame) as { type: string };
      if (type === 'complete' || type === 'error') return frames;
    }
  }
}

// In production too: no "Did you mean …" and no introspection there (`socketAnswer`).
describe.each(['test', 'production'] as const)(
  'graphql-ws fast path (%s): the same bytes as graphql-js execute',
  (nodeEnv) => {
    let fast: TestGateway;
    let general: TestGateway;
    const sockets: RawSocket[] = [];
    /** Answers the fast path gave (FastMutations' own answer, not graphql-js). */
    let fastAnswers: jest.SpiedFunction<() => unknown>;

    beforeAll(async () => {
      fast = await startTestGateway(options(true, nodeEnv));
      general = await startTestGateway(options(false, nodeEnv));
      await seed(fast);
      await seed(general);
      // A page reads over HTTP before it votes over the socket (the live game, the lists): an
      // operation through Apollo first, as in a browser. Apollo's default cache-control plugin
      // wrapped every field's resolver then, and the fast path never answered a vote after it.
      for (const gateway of [fast, general]) {
        const read = await fetch(gateway.url('/graphql'), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Device-ID': 'device-fast-path' },
          body: JSON.stringify({ query: '{ serverTime }' }),
        });
        expect(read.status).toBe(200);
      }
      fastAnswers = jest.spyOn(
        FastMutations.prototype as unknown as { answer(): unknown },
        'answer',
      );
    });
    afterAll(async () => {
      for (const raw of sockets) raw.socket.close();
      await fast.stop();
      await general.stop();
    });

    let operations = 0;
    /**
     * The same operation on both gateways, each on a socket opened for `sessionId`: the frames of
     * the fast gateway, checked equal to the general one's, and whether the fast path answered.
     */
    async function both(sessionId: string | undefined, query: string, variables?: unknown) {
      const id = `op-${++operations}`;
      const before = fastAnswers.mock.calls.length;
      const onFast = await (await open(fast, sessionId)).operation(id, query, variables);
      const answeredFast = fastAnswers.mock.calls.length > before;
      const onGeneral = await (await open(general, sessionId)).operation(id, query, variables);
      expect(fastAnswers.mock.calls.length).toBe(answeredFast ? before + 1 : before);
      expect(onFast).toEqual(onGeneral);
      const payload = (JSON.parse(onFast[0]!) as { payload: Answer }).payload;
      return { frames: onFast, payload, answeredFast };
    }

    async function open(gateway: TestGateway, sessionId: string | undefined) {
      const raw = await RawSocket.open(gateway, sessionId);
      sockets.push(raw);
      return raw;
    }

    interface Answer {
      data?: unknown;
      errors?: Array<{ message: string; extensions?: { code?: string } }>;
    }
    const codeOf = (answer: Answer) => answer.errors?.[0]?.extensions?.code;

    const vote = { tournamentId: OPEN, roundNumber: 1, imageId: 'round-1-image-0' };

    it('counts a vote: the same receipt, next then complete', async () => {
      const { frames, answeredFast } = await both('session-fast-a', castVote, vote);

      expect(answeredFast).toBe(true);
      expect(frames).toEqual([
        `{"id":"op-${operations}","type":"next","payload":{"data":{"castVote":{"tournamentId":"${OPEN}","roundNumber":1,"imageId":"round-1-image-0","__typename":"VoteReceipt"}}}}`,
        `{"id":"op-${operations}","type":"complete"}`,
      ]);
      // The same vote again is a resend (a receipt); another image is a second vote.
      expect((await both('session-fast-a', castVote, vote)).payload).toEqual({
        data: { castVote: { ...vote, __typename: 'VoteReceipt' } },
      });
      const second = await both('session-fast-a', castVote, {
        ...vote,
        imageId: 'round-1-image-1',
      });
      expect(codeOf(second.payload)).toBe('ALREADY_VOTED');
    });

    it.each([
      ['VOTING_CLOSED', 'session-fast-b', { ...vote, tournamentId: CLOSED }],
      ['ELIMINATED', 'session-fast-out', vote],
      ['INVALID_IMAGE', 'session-fast-b', { ...vote, imageId: 'round-2-image-0' }],
      ['WRONG_ROUND', 'session-fast-b', { ...vote, roundNumber: 2, imageId: 'round-2-image-0' }],
      ['EMAIL_NOT_VERIFIED', 'session-fast-unverified', vote],
      ['SOCKET_UNAUTHENTICATED', undefined, vote],
    ])('refuses a vote with %s, in the same bytes', async (code, sessionId, variables) => {
      const { payload, answeredFast } = await both(sessionId, castVote, variables);

      expect(answeredFast).toBe(true);
      expect(payload.data).toBeNull();
      expect(codeOf(payload)).toBe(code);
    });

    it('refuses votes over the rate limit with RATE_LIMITED, in the same bytes', async () => {
      const codes = [];
      for (let sent = 0; sent < 4; sent += 1) {
        codes.push(codeOf((await both('session-fast-limit', castVote, vote)).payload));
      }

      expect(codes).toEqual([undefined, undefined, undefined, 'RATE_LIMITED']);
    });

    it('joins, and refuses a join with the engine’s codes, in the same bytes', async () => {
      const joined = await both('session-fast-b', joinTournament, { tournamentId: OPEN });
      expect(joined.answeredFast).toBe(true);
      expect(joined.payload).toEqual({
        data: {
          joinTournament: {
            __typename: 'PlayerState',
            isParticipant: true,
            isEliminated: false,
            eliminatedInRound: 0,
            isOfflinePlayer: false,
            voteImageId: 'round-1-image-2',
          },
        },
      });

      for (const [code, sessionId, tournamentId] of [
        ['JOIN_CLOSED', 'session-fast-b', CLOSED],
        ['TOURNAMENT_NOT_FOUND', 'session-fast-b', 'tournament-fast-unknown'],
        ['EMAIL_NOT_VERIFIED', 'session-fast-unverified', OPEN],
        ['SOCKET_UNAUTHENTICATED', undefined, OPEN],
        ['INTERNAL', 'session-fast-b', 'tournament-fast-broken'],
      ] as const) {
        const refused = await both(sessionId, joinTournament, { tournamentId });
        expect(refused.answeredFast).toBe(true);
        expect(codeOf(refused.payload)).toBe(code);
      }
    });

    it('leaves variables it does not take as they are to graphql-js: the same errors', async () => {
      const { imageId: _missing, ...withoutImage } = vote;
      for (const variables of [
        withoutImage,
        { ...vote, roundNumber: '1' },
        { ...vote, roundNumber: 1.5 },
        { ...vote, roundNumber: 2 ** 31 },
        { ...vote, imageId: null },
        undefined,
      ]) {
        const { payload, answeredFast } = await both('session-fast-b', castVote, variables);
        expect(answeredFast).toBe(false);
        expect(payload.data).toBeUndefined();
        expect(payload.errors?.[0]?.message).toMatch(/^Variable "\$\w+"/);
      }
      // An ID sent as a number is coerced by graphql-js ("7"): answered, by the general path.
      const coerced = await both('session-fast-b', joinTournament, { tournamentId: 7 });
      expect(coerced.answeredFast).toBe(false);
      expect(codeOf(coerced.payload)).toBe('TOURNAMENT_NOT_FOUND');
    });

    it('answers any other document by the general path: aliases, literals', async () => {
      const aliased = await both(
        'session-fast-c',
        `mutation { receipt: castVote(tournamentId: "${OPEN}", roundNumber: 1, imageId: "round-1-image-3") { imageId } }`,
      );
      expect(aliased.answeredFast).toBe(false);
      expect(aliased.payload).toEqual({ data: { receipt: { imageId: 'round-1-image-3' } } });

      const literal = await both(
        'session-fast-b',
        `mutation { joinTournament(tournamentId: "${OPEN}") { __typename isParticipant } }`,
      );
      expect(literal.answeredFast).toBe(false);
      expect(literal.payload).toEqual({
        data: { joinTournament: { __typename: 'PlayerState', isParticipant: true } },
      });
    });

    // Last: it closes both gateways' buses.
    it('answers a vote it could not produce VOTE_NOT_RECORDED, in the same bytes', async () => {
      await fast.bus.close();
      await general.bus.close();

      const { payload, answeredFast } = await both('session-fast-d', castVote, vote);

      expect(answeredFast).toBe(true);
      expect(codeOf(payload)).toBe('VOTE_NOT_RECORDED');
    });
  },
);
