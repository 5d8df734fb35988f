import {
  AppError,
  ComponentGroup,
  createLogger,
  createMetricsRegistry,
  type Clock,
  type Registry,
} from '@underdog/kit';
import {
  AdsService,
  AuthService,
  GameService,
  NotificationService,
  Role,
  TournamentService,
  timestampFromDate,
  type MessageInitShape,
  type UserSchema,
} from '@underdog/proto';
import type { ServiceImpl } from '@underdog/rpc';
import { createMemoryBus, type EventBus } from '@underdog/bus';
import { allTopics } from '@underdog/platform';
import { createMemoryStore, type LiveStore } from '@underdog/store';
import {
  createGateway,
  createGatewayClients,
  gatewaySettings,
  type Gateway,
  type GatewaySettings,
} from '../src';
import type { LiveGamePort, RealtimeLimits } from '../src/realtime/ports';

export const validPassword = 'right-password1';

/** What the stub auth service was asked, so tests can check what the gateway passed on. */
export interface AuthCalls {
  register: Array<{ email: string; deviceId: string }>;
  login: Array<{ email: string; deviceId: string }>;
  logout: string[];
  getSession: string[];
}

/**
 * A small stand-in for the auth service with one account (`ann@example.com` / `validPassword`)
 * and its sessions in a Map. It answers like the real one where the gateway depends on it:
 * INVALID_CREDENTIALS for a wrong login, NO_SESSION for an unknown session.
 */
export function stubAuth(calls: AuthCalls): Partial<ServiceImpl<typeof AuthService>> {
  const sessions = new Map<string, string>();
  let next = 0;
  const openSession = (email: string, deviceId: string) => {
    next += 1;
    const id = `session-${next}`;
    sessions.set(id, email);
    return { id, userId: `user-${email}`, deviceId };
  };
  const noSession = () =>
    new AppError('UNAUTHENTICATED', 'Not authenticated', { reason: 'NO_SESSION' });
  return {
    register: ({ email, displayName, deviceId }) => {
      calls.register.push({ email, deviceId });
      return {
        user: userMessage(email, displayName),
        session: openSession(email, deviceId),
        message: 'Account created! Check your e-mail for the verification code.',
      };
    },
    login: ({ email, password, deviceId }) => {
      calls.login.push({ email, deviceId });
      if (email.toLowerCase() !== 'ann@example.com' || password !== validPassword) {
        throw new AppError('UNAUTHENTICATED', 'Invalid username or password', {
          reason: 'INVALID_CREDENTIALS',
        });
      }
      return { user: userMessage('ann@example.com', 'Ann'), session: openSession(email, deviceId) };
    },
    logout: ({ sessionId }) => {
      calls.logout.push(sessionId);
      sessions.delete(sessionId);
      return {};
    },
    getSession: ({ sessionId }) => {
      calls.getSession.push(sessionId);
      const email = sessions.get(sessionId);
      if (!email) throw noSession();
      return { user: userMessage(email, 'Ann'), session: { id: sessionId } };
    },
    getSessionActor: ({ sessionId }) => {
      calls.getSession.push(sessionId);
      const email = sessions.get(sessionId);
      if (!email) throw noSession();
      return { actor: actorOfUserMessage(userMessage(email, 'Ann')), session: { id: sessionId } };
    },
    updateProfile: ({ sessionId, displayName }) => {
      const email = sessions.get(sessionId);
      if (!email) throw noSession();
      return { user: userMessage(email, displayName) };
    },
    verifyEmail: () => {
      throw new AppError('BAD_REQUEST', 'Invalid verification code', { reason: 'CODE_INVALID' });
    },
    resendVerification: () => ({ message: 'A new verification email has been sent.' }),
  };
}

/** The actor the real auth service's session claims give for this user. */
function actorOfUserMessage(user: MessageInitShape<typeof UserSchema>) {
  return {
    userId: user.id ?? '',
    username: user.username ?? '',
    role: user.role === Role.ADMIN ? 'admin' : 'user',
    isEmailVerified: user.isEmailVerified ?? false,
  };
}

type AuthImpl = Partial<ServiceImpl<typeof AuthService>>;

/**
 * A test that replaces GetSession gets GetSessionActor answered from it (same user, same
 * lookups counted), as the real service answers both from one session; unless it replaces that
 * too.
 */
function withActorLookup(auth: AuthImpl | undefined): AuthImpl {
  const getSession = auth?.getSession;
  if (!getSession || auth.getSessionActor) return auth ?? {};
  return {
    ...auth,
    getSessionActor: async (request, context) => {
      const { user, session } = await getSession(
        { $typeName: 'underdog.auth.v1.GetSessionRequest', sessionId: request.sessionId },
        context,
      );
      return { actor: user && actorOfUserMessage(user), session };
    },
  };
}

export function userMessage(
  email: string,
  displayName: string,
): MessageInitShape<typeof UserSchema> {
  return {
    id: `user-${email}`,
    username: email.split('@')[0] ?? email,
    email,
    displayName,
    role: Role.USER,
    isEmailVerified: false,
    createdAt: timestampFromDate(new Date('2030-01-01T00:00:00.000Z')),
    statistics: { gamesPlayed: 3, wins: 1, totalPrizes: 500 },
  };
}

export const mail = {
  to: 'ann@example.com',
  subject: 'Verify your e-mail for Underdog',
  text: 'Your code is 123456',
  html: '<p>Your code is 123456</p>',
  sentAt: new Date('2030-01-01T00:00:05.000Z'),
};

export interface TestGateway {
  url(path: string): string;
  calls: AuthCalls;
  store: LiveStore;
  /** The in-memory bus the gateway's real-time fan-out consumes. */
  bus: EventBus;
  gateway: Gateway;
  registry: Registry;
  stop(): Promise<void>;
}

export interface TestGatewayOptions {
  env?: Record<string, string>;
  nodeEnv?: 'development' | 'production' | 'test';
  settings?: Partial<GatewaySettings>;
  /** Handlers of the stub auth service that replace `stubAuth`'s. */
  auth?: Partial<ServiceImpl<typeof AuthService>>;
  /** Handlers of the stub tournament service besides `getServerTime`. */
  tournament?: Partial<ServiceImpl<typeof TournamentService>>;
  /** Handlers of the stub ads service. */
  ads?: Partial<ServiceImpl<typeof AdsService>>;
  /** Handlers of the stub game-engine (GameService). */
  game?: Partial<ServiceImpl<typeof GameService>>;
  /** The live game behind `/ws` and the graphql-ws subscriptions. */
  games?: LiveGamePort;
  realtimeLimits?: Partial<RealtimeLimits>;
  /** The gateway's clock (`testClock()` to move time by hand); default: the system clock. */
  clock?: Clock;
  /** A built web app to serve at `/`. */
  webRoot?: string;
}

/** The gateway on a free port, in front of stub services called in-process. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const logger = createLogger({ service: 'gateway-test', level: 'silent' });
  const calls: AuthCalls = { register: [], login: [], logout: [], getSession: [] };
  const clients = createGatewayClients({
    auth: {
      mode: 'in-process',
      routes: (router) =>
        router.service(AuthService, { ...stubAuth(calls), ...withActorLookup(options.auth) }),
    },
    tournament: {
      mode: 'in-process',
      routes: (router) =>
        router.service(TournamentService, {
          getServerTime: () => ({ serverTime: timestampFromDate(new Date()) }),
          ...options.tournament,
        }),
    },
    ads: {
      mode: 'in-process',
      routes: (router) => router.service(AdsService, options.ads ?? {}),
    },
    game: {
      mode: 'in-process',
      routes: (router) => router.service(GameService, options.game ?? {}),
    },
    notification: {
      mode: 'in-process',
      routes: (router) =>
        router.service(NotificationService, {
          listMailbox: () => ({
            messages: [{ ...mail, sentAt: timestampFromDate(mail.sentAt) }],
          }),
        }),
    },
  });
  const store = createMemoryStore();
  const registry = createMetricsRegistry('gateway-test');
  const bus = createMemoryBus({ logger });
  await bus.ensureTopics(allTopics);
  const group = new ComponentGroup(logger, []);
  const gateway = await createGateway({
    logger,
    registry,
    clients,
    store,
    bus,
    instanceId: 'test',
    ...(options.games ? { games: options.games } : {}),
    ...(options.realtimeLimits ? { realtimeLimits: options.realtimeLimits } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    settings: {
      ...gatewaySettings(options.env ?? {}, options.nodeEnv ?? 'test'),
      ...options.settings,
    },
    readiness: () => group.readiness(),
    webRoot: options.webRoot,
  });
  const http = gateway.listen({ port: 0, host: '127.0.0.1' });
  await http.start?.();
  return {
    url: (path) => `http://127.0.0.1:${http.port()}${path}`,
    calls,
    store,
    bus,
    gateway,
    registry,
    stop: async () => {
      await http.stop?.();
      await bus.close();
      await store.close();
    },
  };
}

/** The headers every browser request of the web app carries on a mutation. */
export const jsonHeaders = { 'content-type': 'application/json', 'x-device-id': 'device-test-1' };

/** The `name=value` part of a response's session cookie, to send back. */
export function cookieFrom(response: Response): string {
  const header = response.headers.get('set-cookie');
  const pair = header?.split(';', 1)[0];
  if (!pair) throw new Error('the response set no cookie');
  return pair;
}

/** The JSON error body of the edge: `requestId` is the call's id, whatever it was. */
export function errorBody(message: string, code: string) {
  return { message, code, requestId: expect.any(String) as unknown };
}
