/**
 * What the services' tests share, defined once: a clock the test moves, the actors the gateway
 * resolves, waiting for a condition, reading an RPC's failure, a silent logger, the context a
 * service module is created with. Tests only.
 */
import { inspect } from 'node:util';
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

/** How `waitFor` waits: how long in all, how often it looks, and what it says it waited for. */
export interface WaitOptions {
  /** Give up after this long (default 30 s: a ceiling for a slow machine, never a measurement). */
  timeoutMs?: number;
  /** Look again after this long (default 10 ms). */
  intervalMs?: number;
  /** What is awaited, named in the failure: "the game's first round", "two mails". */
  message?: string;
}

/**
 * The one way a test waits for something that happens on its own time (a message, a process, a
 * consumer catching up). Calls `check` until it returns a truthy value, which it resolves with;
 * a `check` that throws (an `expect` not met yet, a server not up yet) is retried too. After
 * `timeoutMs` it fails naming what was awaited and the last error (or the last value seen).
 *
 * The timeout is a ceiling, never an assertion: a test must not pass or fail on how fast something
 * happened (capacity is measured by the benchmarks in load/). To show that something did NOT
 * happen, wait for a later marker instead of sleeping (docs/contributing.md, "How tests wait").
 *
 *     await waitFor(() => sent.length === 2, { message: 'both mails' });
 *     const game = await waitFor(async () => (await games.find(id)) ?? false, 'the game');
 *     await waitFor(() => expect(received).toContainEqual(marker), { timeoutMs: 5_000 });
 *
 * The second argument may also be the message on its own, and the third the timeout.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitOptions | string = {},
  timeoutMs?: number,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const {
    message = 'the condition',
    intervalMs = 10,
    ...rest
  } = typeof options === 'string' ? { message: options } : options;
  const limitMs = timeoutMs ?? rest.timeoutMs ?? 30_000;
  // Real time on purpose: this bounds how long a test waits for real processes, it is no rule.
  const deadline = Date.now() + limitMs;
  let last: { error: unknown } | { value: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const seen =
        'error' in last
          ? `the last check failed with: ${last.error instanceof Error ? last.error.message : String(last.error)}`
          : `the last check returned ${inspect(last.value, { depth: 2 })}`;
      throw new Error(`timed out after ${limitMs} ms waiting for ${message}; ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Probes until `done` accepts what it returned, and returns that; fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const found = await waitFor(
    async () => {
      const value = await probe();
      return done(value) ? { value } : false;
    },
    { message: what, timeoutMs },
  );
  return found.value;
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

/** Silent unless `TEST_LOG_LEVEL` names a level (`TEST_LOG_LEVEL=debug` to follow a failing test). */
export function silentLogger(service: string): Logger {
  // eslint-disable-next-line no-restricted-properties -- a switch for following a test, not a service's configuration
  return createLogger({ service, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
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
