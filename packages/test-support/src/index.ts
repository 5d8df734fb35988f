/**
 * What the services' tests share, defined once: a clock the test moves, the actors the gateway
 * resolves, waiting for a condition, reading an RPC's failure, a silent logger, the context a
 * service module is created with. Tests only.
 */
import {
  createLogger,
  createMetricsRegistry,
  type AppError,
  type Clock,
  type Logger,
  type ReadinessReport,
} from '@underdog/kit';
import { ActorSchema, create, type Actor } from '@underdog/proto';
import { appErrorFromRpc } from '@underdog/rpc';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A clock the test moves by hand (a kit `Clock`); `now` may be handed over on its own. */
export function testClock(start = new Date('2030-01-01T12:00:00.000Z')) {
  let current = start.getTime();
  return {
    now: (): Date => new Date(current),
    set: (at: Date): void => void (current = at.getTime()),
    advance: (ms: number): void => void (current += ms),
  } satisfies Clock & Record<string, unknown>;
}
export type TestClock = ReturnType<typeof testClock>;

type ActorFields = Partial<Pick<Actor, 'userId' | 'role' | 'isEmailVerified' | 'deviceId'>>;

/** Actors as the gateway resolves them from a session (and the device header). */
export const actors = {
  admin: (fields: ActorFields = {}): Actor =>
    create(ActorSchema, {
      userId: 'admin-1',
      role: 'admin',
      isEmailVerified: true,
      username: 'admin',
      ...fields,
    }),
  user: (userId = 'user-1', fields: ActorFields = {}): Actor =>
    create(ActorSchema, {
      userId,
      role: 'user',
      isEmailVerified: true,
      deviceId: `device-of-${userId}`,
      username: userId,
      ...fields,
    }),
  unverified: (userId = 'user-unverified'): Actor =>
    create(ActorSchema, { userId, role: 'user', isEmailVerified: false, username: userId }),
  /** Signed out: an actor with nothing set. */
  visitor: (): Actor => create(ActorSchema, {}),
};

/** Resolves once `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  await eventually(condition, (done) => done, what, timeoutMs);
}

/** Probes until `done` accepts what it returned, and returns that; fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The AppError an RPC failed with, as the gateway sees it; throws if the call succeeded. */
export async function failureOf(
  call: Promise<unknown>,
): Promise<Pick<AppError, 'code' | 'reason' | 'message'>> {
  try {
    await call;
  } catch (error) {
    const { code, reason, message } = appErrorFromRpc(error);
    return { code, reason, message };
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export function silentLogger(service: string): Logger {
  return createLogger({ service, level: 'silent' });
}

/**
 * The platform's `ServiceContext` for a module created in a test: the given infrastructure, a
 * silent logger (or the given one), its own metrics registry, replica `test`, always ready.
 */
export function testContext<Infrastructure>(
  infrastructure: Infrastructure,
  overrides: {
    logger?: Logger;
    nodeEnv?: 'development' | 'production' | 'test';
    instanceId?: string;
  } = {},
) {
  return {
    logger: overrides.logger ?? silentLogger('test'),
    registry: createMetricsRegistry('test'),
    infrastructure,
    nodeEnv: overrides.nodeEnv ?? ('test' as const),
    instanceId: overrides.instanceId ?? 'test',
    readiness: (): Promise<ReadinessReport> => Promise.resolve({ ready: true, checks: {} }),
  };
}

export { startTcpProxy, type TcpProxy } from './tcp-proxy';
