import { randomUUID } from 'node:crypto';
import type { BusMessage, Subscription, TopicSpec } from '@underdog/bus';
import {
  ComponentGroup,
  createLogger,
  createMetricsRegistry,
  type Environment,
} from '@underdog/kit';
import { createMemoryInfrastructure, topics, type Infrastructure } from '@underdog/platform';
import {
  AuthService,
  NotificationRequestSchema,
  UserEventSchema,
  fromBinary,
  timestampDate,
  type UserEvent,
  type VerificationEmailRequested,
} from '@underdog/proto';
import {
  Code,
  ConnectError,
  createClient,
  createInProcessTransport,
  errorReason,
  type Client,
  type Transport,
} from '@underdog/rpc';
import { createMemoryStore } from '@underdog/store';
import { testClock, testContext, waitFor, type TestClock } from '@underdog/test-support';
import { authConfig, createAuthModule } from '../src';

const logger = createLogger({ service: 'auth-test', level: 'silent' });
const registry = createMetricsRegistry('auth-test');

export { testClock, type TestClock } from '@underdog/test-support';

export const minutes = (n: number) => n * 60_000;
export const hours = (n: number) => n * 60 * 60_000;
export const days = (n: number) => n * 24 * 60 * 60_000;

/** Everything a message on a topic carries that tests look at. */
interface Received<T> {
  key: string;
  headers: Record<string, string>;
  value: T;
}

/** Collects a topic's messages as they are published, decoded. */
class TopicRecorder<T> {
  readonly received: Received<T>[] = [];
  private subscription: Subscription | undefined;
  private infrastructure: Infrastructure | undefined;
  /** The last offset read, by partition. */
  private readonly readTo = new Map<number, bigint>();

  constructor(
    private readonly topic: TopicSpec,
    private readonly decode: (value: Uint8Array) => T,
  ) {}

  async start(infrastructure: Infrastructure, groupId: string): Promise<void> {
    this.infrastructure = infrastructure;
    this.subscription = await infrastructure.bus.subscribe({
      groupId,
      topics: [this.topic.name],
      fromBeginning: true,
      handleBatch: async (batch: BusMessage[]) => {
        for (const message of batch) {
          this.readTo.set(message.partition, BigInt(message.offset));
          this.received.push({
            key: message.key,
            headers: message.headers,
            value: this.decode(message.value ?? new Uint8Array()),
          });
        }
      },
    });
  }

  /**
   * Resolves once every message published so far is read (each partition to its end offset):
   * the marker that nothing more was published, without a pause.
   */
  async caughtUp(): Promise<void> {
    const { bus } = this.infrastructure!;
    for (let partition = 0; partition < this.topic.partitions; partition += 1) {
      const end = BigInt(await bus.endOffset(this.topic.name, partition));
      await waitFor(
        () => (this.readTo.get(partition) ?? -1n) >= end - 1n,
        `${this.topic.name}[${partition}] read to its end (${end})`,
      );
    }
  }

  stop(): Promise<void> {
    return this.subscription?.stop() ?? Promise.resolve();
  }
}

/** The verification e-mails the notification service would send, read from the bus. */
export class Mailbox {
  private readonly read = new Map<string, number>();

  constructor(private readonly recorder: TopicRecorder<VerificationEmailRequested>) {}

  /** Every verification e-mail requested for `email`, oldest first. */
  all(email: string): VerificationEmailRequested[] {
    return this.recorder.received.map((m) => m.value).filter((mail) => mail.email === email);
  }

  /** The next e-mail to `email` not returned before; waits briefly for it to arrive. */
  async next(email: string): Promise<VerificationEmailRequested> {
    const index = this.read.get(email) ?? 0;
    const mail = await waitFor(() => this.all(email)[index], {
      message: `verification e-mail #${index + 1} for ${email}`,
      timeoutMs: 2_000,
    });
    this.read.set(email, index + 1);
    return mail;
  }

  get raw(): Received<VerificationEmailRequested>[] {
    return this.recorder.received;
  }

  /** Every e-mail requested so far is in the mailbox (the topic read to its end). */
  caughtUp(): Promise<void> {
    return this.recorder.caughtUp();
  }
}

export interface TestAuth {
  client: Client<typeof AuthService>;
  /** Reaches this instance's Connect handlers in-process (for the CLI). */
  transport: Transport;
  clock: TestClock;
  infrastructure: Infrastructure;
  mailbox: Mailbox;
  userEvents: Received<UserEvent>[];
  stop(): Promise<void>;
}

/**
 * The auth service as it runs in standalone mode: its definition's `create` on the in-memory
 * adapters, its components started, and a client calling its Connect handlers in-process.
 */
export async function startAuth(
  options: { env?: Environment; infrastructure?: Infrastructure } = {},
): Promise<TestAuth> {
  const clock = testClock();
  const store = createMemoryStore({ now: () => clock.now().getTime() });
  const infrastructure: Infrastructure = options.infrastructure ?? {
    ...createMemoryInfrastructure(logger),
    store,
  };
  const module = await createAuthModule(
    { ...testContext(infrastructure, { logger }), registry },
    authConfig(options.env ?? {}),
    { clock },
  );
  if (!module.registerRpc) throw new Error('the auth service registers no RPC handlers');
  const group = new ComponentGroup(logger, [...infrastructure.components, ...module.components]);
  await group.start();

  const mail = new TopicRecorder(topics.notificationRequests, (value) => {
    const request = fromBinary(NotificationRequestSchema, value);
    if (request.kind.case !== 'verificationEmail') throw new Error('unexpected request');
    return request.kind.value;
  });
  const events = new TopicRecorder(topics.userEvents, (value) =>
    fromBinary(UserEventSchema, value),
  );
  // Groups of their own, so they see every message whoever else consumes the topics.
  await mail.start(infrastructure, `test-notifications-${randomUUID()}`);
  await events.start(infrastructure, `test-user-events-${randomUUID()}`);

  const transport = createInProcessTransport(module.registerRpc);
  return {
    client: createClient(AuthService, transport),
    transport,
    clock,
    infrastructure,
    mailbox: new Mailbox(mail),
    userEvents: events.received,
    stop: async () => {
      await mail.stop();
      await events.stop();
      await group.stop();
      await store.close();
    },
  };
}

/**
 * Another replica of the service on the same infrastructure and clock, as a second pod would
 * be; its components (the admin bootstrap) are started by the caller.
 */
export async function createReplica(auth: TestAuth, env: Environment) {
  const module = await createAuthModule(
    { ...testContext(auth.infrastructure, { logger }), registry },
    authConfig(env),
    { clock: auth.clock },
  );
  return new ComponentGroup(logger, module.components);
}

let playerCount = 0;

/** Registration details of a fresh, valid player. */
export function newPlayer(
  overrides: Partial<{ email: string; displayName: string; password: string }> = {},
) {
  playerCount += 1;
  return {
    email: `player${playerCount}@example.com`,
    displayName: `Player ${playerCount}`,
    password: 'correct horse 1',
    deviceId: `device-${playerCount}`,
    ...overrides,
  };
}

/** Registers a player and returns what the tests need next: the session and the code. */
export async function registerPlayer(
  auth: TestAuth,
  overrides: Parameters<typeof newPlayer>[0] = {},
) {
  const player = newPlayer(overrides);
  const response = await auth.client.register(player);
  const mail = await auth.mailbox.next(player.email.trim().toLowerCase());
  return {
    player,
    user: response.user!,
    sessionId: response.session!.id,
    code: mail.code,
    token: mail.token,
    response,
  };
}

/** How every RPC answers a session it does not know (made up, ended, expired). */
export const noSession = {
  code: Code.Unauthenticated,
  reason: 'NO_SESSION',
  message: 'Not authenticated',
};

/** The error an RPC failed with, as the caller sees it: code, reason header and message. */
export async function rpcFailure(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return { code: error.code, reason: errorReason(error), message: error.rawMessage };
  }
  throw new Error('expected the call to fail');
}

/** A wrong code for `code`: same length, every digit different. */
export function wrongCode(code: string): string {
  return [...code].map((digit) => String((Number(digit) + 1) % 10)).join('');
}

export const expiresAt = (mail: VerificationEmailRequested) =>
  mail.expiresAt ? timestampDate(mail.expiresAt) : undefined;
