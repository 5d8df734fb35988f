import { addressPrefixHash, deviceIdHash, userAgentHash } from '@underdog/fair-play';
import { AppError } from '@underdog/kit';
import { topics } from '@underdog/platform';
import {
  FairPlaySignalSchema,
  fromBinary,
  timestampFromDate,
  type Actor,
  type FairPlaySignal,
} from '@underdog/proto';
import { waitFor } from '@underdog/test-support';
import { FairPlaySignals } from '../src/fair-play-signals';
import type { RequestOrigin } from '../src/session';
import {
  cookieFrom,
  jsonHeaders,
  startTestGateway,
  validPassword,
  type TestGateway,
} from './support';

/*
 * Issue 28 at the edge: the gateway publishes a fair-play signal on `fair-play.signals` after a
 * register or login succeeded (addresses and user agents only as keyed hashes), never fails the
 * request when the publish does, and serves the fair-play report to admins only, over REST and
 * GraphQL, with the winner's flag in the history. The documented client: X-Device-ID on every
 * request, a JSON content type only with a body.
 */
const SECRET = 'gateway-test-fair-play-secret-0123456789';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Test/1.0';

function requireAdmin(actor: Actor | undefined, admins: Set<string>) {
  if (!actor?.userId) {
    throw new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
  }
  if (!admins.has(actor.userId)) {
    throw new AppError('FORBIDDEN', 'Admin access required', { reason: 'ADMIN_ONLY' });
  }
}

const report = {
  tournamentId: 'played',
  final: true,
  computedAt: timestampFromDate(new Date('2030-01-01T13:00:00.000Z')),
  participantCount: 12,
  roundCount: 3,
  flaggedUserIds: ['u-ann', 'u-ben'],
  usernames: { 'u-ann': 'ann', 'u-ben': 'ben', 'u-cat': 'cat' },
  clusters: [
    {
      memberUserIds: ['u-ann', 'u-ben', 'u-cat'],
      flaggedUserIds: ['u-ann', 'u-ben'],
      score: 0.8,
      flagged: true,
      identitySurprise: 4,
      playSurprise: 20,
      evidence: [
        {
          kind: 'sharedAddressPrefix',
          text: '3 accounts share address prefix 0bc10ed1…',
          memberUserIds: ['u-ann', 'u-ben', 'u-cat'],
          surprise: 0,
        },
        {
          kind: 'coveringVotes',
          text: '2 votes split over 2 of 4 images (1/1) in round 1',
          memberUserIds: ['u-ann', 'u-ben'],
          surprise: 1.2,
          roundNumber: 1,
        },
      ],
    },
  ],
};

describe('fair play at the edge', () => {
  let gateway: TestGateway;
  let signals: FairPlaySignal[];
  let raw: Buffer[];
  const admins = new Set(['user-ann@example.com']);

  beforeEach(async () => {
    gateway = await startTestGateway({
      env: { FAIR_PLAY_SECRET: SECRET },
      tournament: {
        getFairPlayReport: ({ actor, tournamentId }) => {
          requireAdmin(actor, admins);
          if (tournamentId !== 'played') {
            throw new AppError('NOT_FOUND', 'Tournament not found', {
              reason: 'TOURNAMENT_NOT_FOUND',
            });
          }
          return { report };
        },
      },
      game: {
        listTournamentHistory: ({ actor }) => {
          requireAdmin(actor, admins);
          return {
            items: [
              {
                gameId: 'g',
                tournament: {
                  id: 'played',
                  title: 'Friday Cup',
                  startAt: timestampFromDate(new Date('2030-01-01T12:00:00.000Z')),
                },
                winnerUsername: 'ann',
                totalPlayers: 12,
                roundsPlayed: 3,
                endedAt: timestampFromDate(new Date('2030-01-01T12:10:00.000Z')),
              },
            ],
          };
        },
      },
    });
    signals = [];
    raw = [];
    await gateway.bus.subscribe({
      groupId: 'test-signals',
      topics: [topics.fairPlaySignals.name],
      fromBeginning: true,
      handleBatch: async (batch) => {
        for (const message of batch) {
          raw.push(Buffer.from(message.value ?? new Uint8Array()));
          signals.push(fromBinary(FairPlaySignalSchema, message.value ?? new Uint8Array()));
        }
      },
    });
  });
  afterEach(() => gateway.stop());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(gateway.url(path), {
      method: 'POST',
      headers: { ...jsonHeaders, 'user-agent': BROWSER, ...headers },
      body: JSON.stringify(body),
    });
  const get = (path: string, cookie = '') =>
    fetch(gateway.url(path), {
      headers: { 'x-device-id': 'device-test-1', ...(cookie ? { cookie } : {}) },
    });
  const graphql = async (query: string, cookie = '') => {
    const response = await fetch(gateway.url('/graphql'), {
      method: 'POST',
      headers: { ...jsonHeaders, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as {
      data?: Record<string, unknown> | null;
      errors?: Array<{ extensions?: { code?: string } }>;
    };
  };
  const login = async (email: string) => {
    const response = await post('/api/login', { email, password: validPassword });
    expect(response.status).toBe(200);
    return cookieFrom(response);
  };
  const register = async (email: string) =>
    post('/api/register', { email, password: validPassword, displayName: 'Ben', username: 'ben' });

  const waitForSignals = (count: number) =>
    waitFor(() => signals.length >= count, `${count} fair-play signals`);

  it('publishes a register and a login signal with keyed hashes, never the raw address or device', async () => {
    expect((await register('ben@example.com')).status).toBe(200);
    await login('ann@example.com');
    await waitForSignals(2);
    const [registered, loggedIn] = signals;
    expect(registered).toMatchObject({
      userId: 'user-ben@example.com',
      deviceId: deviceIdHash('device-test-1', SECRET),
      addressPrefix: addressPrefixHash('127.0.0.1', SECRET),
      userAgent: userAgentHash(BROWSER, SECRET),
      kind: { case: 'registered' },
    });
    expect(loggedIn).toMatchObject({ userId: 'user-ann@example.com', kind: { case: 'loggedIn' } });
    const bytes = Buffer.concat(raw).toString('latin1');
    expect(bytes).not.toContain('127.0.0');
    expect(bytes).not.toContain('Mozilla');
    expect(bytes).not.toContain('device-test-1');
  });

  it('answers the player even when the signal cannot be published', async () => {
    const publish = gateway.bus.publish.bind(gateway.bus);
    gateway.bus.publish = async (topic, messages) => {
      if (topic === topics.fairPlaySignals.name) throw new Error('bus down');
      return publish(topic, messages);
    };
    expect((await register('cat@example.com')).status).toBe(200);
    expect(
      (await post('/api/login', { email: 'ann@example.com', password: validPassword })).status,
    ).toBe(200);
  });

  it('serves the report to admins over REST and GraphQL, 401/403 to others', async () => {
    expect((await get('/api/admin/tournaments/played/fair-play')).status).toBe(401);
    await register('ben@example.com');
    const player = cookieFrom(
      await post('/api/login', { email: 'ann@example.com', password: validPassword }),
    );
    admins.delete('user-ann@example.com');
    const refused = await get('/api/admin/tournaments/played/fair-play', player);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'ADMIN_ONLY' });
    const forbidden = await graphql(
      '{ tournamentFairPlay(tournamentId: "played") { final } }',
      player,
    );
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('ADMIN_ONLY'); // FORBIDDEN's reason, as REST
    admins.add('user-ann@example.com');

    const answer = await get('/api/admin/tournaments/played/fair-play', player);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toEqual({
      tournamentId: 'played',
      final: true,
      computedAt: '2030-01-01T13:00:00.000Z',
      participantCount: 12,
      roundCount: 3,
      flagged: [
        { userId: 'u-ann', username: 'ann' },
        { userId: 'u-ben', username: 'ben' },
      ],
      clusters: [
        expect.objectContaining({
          score: 0.8,
          flagged: true,
          members: [
            { userId: 'u-ann', username: 'ann' },
            { userId: 'u-ben', username: 'ben' },
            { userId: 'u-cat', username: 'cat' },
          ],
          evidence: [
            expect.objectContaining({ kind: 'sharedAddressPrefix', roundNumber: null }),
            expect.objectContaining({ kind: 'coveringVotes', roundNumber: 1 }),
          ],
        }),
      ],
    });
    expect((await get('/api/admin/tournaments/nope/fair-play', player)).status).toBe(404);

    const viaGraphql = await graphql(
      `
        {
          tournamentFairPlay(tournamentId: "played") {
            final
            flagged {
              username
            }
            clusters {
              score
              flaggedMembers {
                username
              }
              evidence {
                kind
                text
                roundNumber
              }
            }
          }
          tournamentHistory {
            tournament {
              id
            }
            winner {
              username
            }
            winnerFlagged
          }
        }
      `,
      player,
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data).toMatchObject({
      tournamentFairPlay: { final: true, flagged: [{ username: 'ann' }, { username: 'ben' }] },
      tournamentHistory: [{ tournament: { id: 'played' }, winnerFlagged: true }],
    });
  });
});

describe('FairPlaySignals', () => {
  const origin = (fields: Partial<RequestOrigin>): RequestOrigin =>
    ({
      ip: '2001:db8:1:2::7',
      deviceId: 'phone-1',
      session: { actor: async () => ({ userId: 'u-1' }) },
      ...fields,
    }) as unknown as RequestOrigin;

  const signalsWith = (published: FairPlaySignal[]) =>
    new FairPlaySignals({
      bus: {
        publish: async (_topic: string, messages: { value: Uint8Array | null }[]) => {
          for (const m of messages) published.push(fromBinary(FairPlaySignalSchema, m.value!));
        },
      } as never,
      secret: SECRET,
      logger: { warn: () => undefined } as never,
    });

  it('joins name the session user; an unusable address gives no prefix, not no signal', async () => {
    const published: FairPlaySignal[] = [];
    const signals = signalsWith(published);
    signals.joined(origin({}), 't-1');
    signals.joined(origin({ ip: 'unknown' }), 't-2');
    await waitFor(() => published.length >= 2, 'the two join signals');
    expect(published.map((p) => [p.userId, p.kind.case])).toEqual([
      ['u-1', 'joined'],
      ['u-1', 'joined'],
    ]);
    expect(published[0]!.addressPrefix).toBe(addressPrefixHash('2001:db8:1:2::ffff', SECRET)); // same /64
    expect(published[0]!.deviceId).toBe(deviceIdHash('phone-1', SECRET));
    expect(published[1]!.addressPrefix).toBe('');
    expect(published[1]!.deviceId).toBe(deviceIdHash('phone-1', SECRET));
  });

  it("hashes a socket's origin once for all its votes, again only when a raw value changed", () => {
    const signals = signalsWith([]);
    const socket = origin({ userAgent: BROWSER, deviceId: '' });
    const first = signals.hashesOf(socket);
    expect(first).toEqual({
      deviceId: '',
      addressPrefix: addressPrefixHash('2001:db8:1:2::7', SECRET),
      userAgent: userAgentHash(BROWSER, SECRET),
    });
    // The same object for every later vote on the socket: nothing hashed again.
    expect(signals.hashesOf(socket)).toBe(first);
    // connection_init names the device after the upgrade: hashed then.
    socket.deviceId = 'phone-2';
    const withDevice = signals.hashesOf(socket);
    expect(withDevice).not.toBe(first);
    expect(withDevice).toMatchObject({ deviceId: deviceIdHash('phone-2', SECRET) });
    expect(signals.hashesOf(socket)).toBe(withDevice);
    // Another socket from the same place: its own hashes, equal in value.
    const other = origin({ userAgent: BROWSER, deviceId: 'phone-2' });
    expect(signals.hashesOf(other)).not.toBe(withDevice);
    expect(signals.hashesOf(other)).toEqual(
      expect.objectContaining({
        deviceId: withDevice.deviceId,
        addressPrefix: withDevice.addressPrefix,
        userAgent: withDevice.userAgent,
      }),
    );
  });
});
