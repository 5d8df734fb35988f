// Over 300 lines: every edge setting in one place, its variable, default and doc side by side.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError, envFields, parseEnv, type Environment } from '@underdog/kit';
import { parseAll } from '@underdog/platform';
import { z } from 'zod';
import { DEFAULT_WITHDRAWAL_WAIT_MS } from './games';
import type { GameActionRules } from './game-action-limits';
import type { RateLimitRule } from './rate-limiter';
import { DEFAULT_VOTE_APPLY_LAG_REFRESH_MS, type VoteBacklogSettings } from './vote-backlog';

/** A replica's id when INSTANCE_ID is unset: unique per process on a host. */
const defaultInstanceId = `${hostname()}-${process.pid}`;

/**
 * The default of WEBSOCKET_MAX_CONNECTIONS_PER_IP: open sockets (`/ws` and graphql-ws together)
 * one client address may hold on one replica. A tab holds one or two, so a game night behind one
 * NAT fits; one host cannot hold a replica's capacity.
 */
export const DEFAULT_WEBSOCKETS_PER_ADDRESS = 200;

/**
 * The default of WEBSOCKET_CAPACITY: open sockets (`/ws` and graphql-ws together) one gateway
 * process holds before it answers new ones "Server full" (close 1013). docs/capacity.md plans
 * 10,000 sockets a replica: results to all of them within the 1 s budget, and ≈ 650 MB RSS with
 * graphql-ws, inside the chart's 1 GiB limit.
 */
export const DEFAULT_WEBSOCKET_CAPACITY = 10_000;

/** The default of WEBSOCKET_FULL_RETRY_SECONDS: the N of `Server full; retry in N s`. */
export const DEFAULT_WEBSOCKET_FULL_RETRY_SECONDS = 10;

/**
 * The default of WEBSOCKET_VISITOR_SHARE: the part of WEBSOCKET_CAPACITY that sockets without a
 * session (visitors, and anyone who has not signed in) may hold; the rest is kept for players.
 * 1,000 watchers a replica at the default capacity; idle strangers cannot fill the room.
 */
export const DEFAULT_WEBSOCKET_VISITOR_SHARE = 0.1;

/**
 * The default of WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: open sockets one network may hold on one
 * replica, counted by IPv4 /24 and IPv6 /48 (the per-address cap already counts an IPv6 address
 * by its /64): five addresses' worth, so one network renting many addresses is still bounded.
 */
export const DEFAULT_WEBSOCKETS_PER_PREFIX = 1_000;

/**
 * The default of WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: how long a new socket may stay silent, a
 * graphql-ws one until `connection_init` (then 4408), a `/ws` one until its first message (then
 * 4408 too). The web app sends its `connection_init` at once.
 */
export const DEFAULT_WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS = 5_000;

/**
 * The default of WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET: live graphql-ws subscriptions one socket
 * may hold at once. The web app holds two (`tournamentsChanged`, and `gameEvents` on a game page).
 */
export const DEFAULT_WEBSOCKET_SUBSCRIPTIONS_PER_SOCKET = 4;

const count = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/**
 * The edge's own settings, the same in both run modes: the session cookie, which proxies to
 * trust for the client address, and the rate limits (a fixed window shared by every limit).
 */
const settingsShape = {
  COOKIE_SECURE: envFields.booleanFlag(false),
  PUBLIC_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .refine(
            (origin) => URL.canParse(origin) && /^https?:$/.test(new URL(origin).protocol),
            'must be comma-separated origins such as https://play.example.com',
          )
          .transform((origin) => new URL(origin).origin),
      ),
    ),
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(15 * 60),
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: count(10),
  RATE_LIMIT_LOGIN_FAILURES_PER_IP: count(50),
  RATE_LIMIT_REGISTRATIONS_PER_IP: count(20),
  RATE_LIMIT_RESENDS_PER_IP: count(10),
  RATE_LIMIT_VERIFICATIONS_PER_IP: count(50),
  RATE_LIMIT_VERIFICATIONS_PER_ACCOUNT: count(10),
  // The flood guard on votes and joins (per user, per gateway process), over a short window.
  RATE_LIMIT_GAME_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  RATE_LIMIT_VOTES_PER_USER: count(60),
  RATE_LIMIT_JOINS_PER_USER: count(30),
  WEBSOCKET_MAX_PAYLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  // Unset means the default below, or no cap with BENCHMARK_SEED=on (see settingsFrom).
  WEBSOCKET_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).optional(),
  // Unset means the default above, or no cap with BENCHMARK_SEED=on (see settingsFrom).
  WEBSOCKET_CAPACITY: z.coerce.number().int().min(0).optional(),
  WEBSOCKET_FULL_RETRY_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(600)
    .default(DEFAULT_WEBSOCKET_FULL_RETRY_SECONDS),
  WEBSOCKET_VISITOR_SHARE: z.coerce.number().min(0).max(1).default(DEFAULT_WEBSOCKET_VISITOR_SHARE),
  // Unset means the default above, or no cap with BENCHMARK_SEED=on or
  // WEBSOCKET_MAX_CONNECTIONS_PER_IP=0 (see settingsFrom).
  WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: z.coerce.number().int().min(0).optional(),
  WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(500)
    .max(60_000)
    .default(DEFAULT_WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS),
  WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(DEFAULT_WEBSOCKET_SUBSCRIPTIONS_PER_SOCKET),
  HTTP_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(100 * 1024),
  HTTP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  // Replicas of the live store that must confirm a vote's withdrawal before VOTING_CLOSED
  // (Redis WAIT; 0 = no wait), and how long it waits for them.
  VOTE_WITHDRAWAL_REPLICAS: z.coerce.number().int().min(0).max(10).default(0),
  VOTE_WITHDRAWAL_WAIT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(DEFAULT_WITHDRAWAL_WAIT_MS),
  // Back-pressure (issue 35): votes a game.votes partition may hold unapplied before new votes
  // are refused VOTE_NOT_RECORDED (0 = off), and how often the lag is read (see vote-backlog.ts).
  VOTE_MAX_APPLY_LAG: z.coerce.number().int().min(0).max(1_000_000).default(0),
  VOTE_APPLY_LAG_REFRESH_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(DEFAULT_VOTE_APPLY_LAG_REFRESH_MS),
  BENCHMARK_SEED: z.enum(['on', 'off']).default('off'),
  // The key of the fair-play hashes (address prefixes, user agents): required in distributed
  // mode (gatewayConfig), made at boot when unset in standalone mode (settingsFrom).
  FAIR_PLAY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
};

export interface RateLimits {
  loginFailuresPerAccount: RateLimitRule;
  loginFailuresPerIp: RateLimitRule;
  registrationsPerIp: RateLimitRule;
  resendsPerIp: RateLimitRule;
  verificationsPerIp: RateLimitRule;
  verificationsPerAccount: RateLimitRule;
}

export interface GatewaySettings {
  /** HTTPS deployment: the cookie is `__Host-underdog_session` and Secure. */
  cookieSecure: boolean;
  /**
   * The origins the web app is served from (`PUBLIC_ORIGINS`): the only pages that may open a
   * WebSocket, and the CSP's connect-src. Empty: the request's own origin (standalone, tests).
   */
  publicOrigins: string[];
  /** How many proxies in front of the gateway append to X-Forwarded-For; 0 trusts none. */
  trustProxy: number;
  /** Whether `GET /api/dev/mailbox` exists: everywhere but production. */
  devMailbox: boolean;
  /** Whether the GraphQL schema can be introspected: everywhere but production. */
  introspection: boolean;
  /** Whether GraphQL errors may suggest field names ("Did you mean …"): everywhere but production. */
  suggestions: boolean;
  /**
   * False: the app's castVote and joinTournament over graphql-ws take graphql-js `execute` too
   * (graphql/fast-mutations.ts); not from the environment: the tests compare both paths.
   */
  graphqlFastPath?: boolean;
  rateLimits: RateLimits;
  /** Votes and joins per user (or client address without a session) per short window. */
  gameActionLimits: GameActionRules;
  /** Whether `POST /api/benchmark/players` exists (BENCHMARK_SEED=on; never in production). */
  benchmarkSeed: boolean;
  /**
   * The key of the fair-play signals' address-prefix and user-agent hashes (FAIR_PLAY_SECRET).
   * Every replica and every restart must share it, or the same network stops linking accounts.
   */
  fairPlaySecret: string;
  /** FAIR_PLAY_SECRET was unset and this process made one (standalone): it warns at start. */
  fairPlaySecretGenerated: boolean;
  webSocket: {
    /** The largest WebSocket message accepted on any endpoint; a bigger one closes it (1009). */
    maxPayloadBytes: number;
    /**
     * Open WebSockets one client address (an IPv6 one by its /64) may hold on this replica; the
     * next upgrade is refused with 429. 0 is no cap.
     */
    maxConnectionsPerAddress: number;
    /**
     * Open WebSockets this process holds on both endpoints together; past it a new one is
     * accepted and closed at once with 1013 `Server full; retry in N s`. 0 is no cap.
     */
    capacity: number;
    /** The N of that close reason: how long a refused client should wait before it retries. */
    fullRetrySeconds: number;
    /**
     * The part of `capacity` (0 to 1) sockets without a signed-in session may hold; past it a
     * visitor's socket is closed 1013 like any past the capacity. A player arriving when the
     * process is full closes the oldest visitor's socket (1013) and takes its place.
     */
    visitorShare: number;
    /**
     * Open WebSockets one network (an IPv4 /24, an IPv6 /48) may hold on this replica, besides
     * the per-address cap; the next upgrade is refused with 429. 0 is no cap.
     */
    maxConnectionsPerPrefix: number;
    /**
     * How long a new socket may send nothing: graphql-ws without `connection_init`, `/ws`
     * without a first message; then it is closed with 4408.
     */
    firstMessageTimeoutMs: number;
    /** Live graphql-ws subscriptions one socket may hold; the next is refused with an error. */
    maxSubscriptionsPerSocket: number;
  };
  /**
   * A vote's withdrawal (a vote produced after its round began closing) is answered with the
   * final VOTING_CLOSED only once this many replicas of the live store confirmed it (Redis
   * WAIT), within `waitMs`; otherwise with the retryable VOTE_NOT_RECORDED, so a failover that
   * loses the withdrawal cannot count a vote the player was told was refused. 0: no wait.
   */
  voteWithdrawal: { replicas: number; waitMs: number };
  /**
   * Back-pressure on votes (issue 35, `VoteBacklog`): a vote is answered the retryable
   * VOTE_NOT_RECORDED, before anything is admitted or produced, while its `game.votes` partition
   * holds `maxMessages` votes the engine has not applied (read every `refreshMs`). Undefined:
   * off (VOTE_MAX_APPLY_LAG=0, the default outside the chart).
   */
  voteBacklog: VoteBacklogSettings | undefined;
  http: {
    /** The largest request body read; past it the request is refused with 413 and closed. */
    maxBodyBytes: number;
    /** How long a request body may take to arrive; then 408 and the connection is closed. */
    bodyTimeoutMs: number;
  };
}

export type NodeEnv = 'development' | 'production' | 'test';

/** The edge settings from the environment; standalone mode calls this with its own env. */
export function gatewaySettings(env: Environment, nodeEnv: NodeEnv): GatewaySettings {
  return settingsFrom(parseEnv(settingsShape, env), nodeEnv);
}

function settingsFrom(
  parsed: z.infer<z.ZodObject<typeof settingsShape>>,
  nodeEnv: NodeEnv,
): GatewaySettings {
  const windowMs = parsed.RATE_LIMIT_WINDOW_SECONDS * 1000;
  const rule = (limit: number): RateLimitRule => ({ limit, windowMs });
  if (parsed.BENCHMARK_SEED === 'on' && nodeEnv === 'production') {
    throw new ConfigError(['BENCHMARK_SEED: must not be on in production (NODE_ENV=production)']);
  }
  return {
    benchmarkSeed: parsed.BENCHMARK_SEED === 'on',
    cookieSecure: parsed.COOKIE_SECURE,
    publicOrigins: parsed.PUBLIC_ORIGINS,
    trustProxy: parsed.TRUST_PROXY,
    devMailbox: nodeEnv !== 'production',
    introspection: nodeEnv !== 'production',
    suggestions: nodeEnv !== 'production',
    fairPlaySecret: parsed.FAIR_PLAY_SECRET ?? randomBytes(32).toString('hex'),
    fairPlaySecretGenerated: parsed.FAIR_PLAY_SECRET === undefined,
    webSocket: {
      maxPayloadBytes: parsed.WEBSOCKET_MAX_PAYLOAD_BYTES,
      // The benchmark opens tens of thousands of sockets from a few loopback addresses.
      maxConnectionsPerAddress:
        parsed.WEBSOCKET_MAX_CONNECTIONS_PER_IP ??
        (parsed.BENCHMARK_SEED === 'on' ? 0 : DEFAULT_WEBSOCKETS_PER_ADDRESS),
      // The benchmark sizes its own runs; its waiting-room run sets WEBSOCKET_CAPACITY.
      capacity:
        parsed.WEBSOCKET_CAPACITY ??
        (parsed.BENCHMARK_SEED === 'on' ? 0 : DEFAULT_WEBSOCKET_CAPACITY),
      fullRetrySeconds: parsed.WEBSOCKET_FULL_RETRY_SECONDS,
      visitorShare: parsed.WEBSOCKET_VISITOR_SHARE,
      // Unset, it follows the per-address cap: lifted with it (a local load run from loopback).
      maxConnectionsPerPrefix:
        parsed.WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX ??
        (parsed.BENCHMARK_SEED === 'on' || parsed.WEBSOCKET_MAX_CONNECTIONS_PER_IP === 0
          ? 0
          : DEFAULT_WEBSOCKETS_PER_PREFIX),
      firstMessageTimeoutMs: parsed.WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS,
      maxSubscriptionsPerSocket: parsed.WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET,
    },
    voteWithdrawal: {
      replicas: parsed.VOTE_WITHDRAWAL_REPLICAS,
      waitMs: parsed.VOTE_WITHDRAWAL_WAIT_MS,
    },
    voteBacklog:
      parsed.VOTE_MAX_APPLY_LAG === 0
        ? undefined
        : {
            maxMessages: parsed.VOTE_MAX_APPLY_LAG,
            refreshMs: parsed.VOTE_APPLY_LAG_REFRESH_MS,
          },
    http: {
      maxBodyBytes: parsed.HTTP_MAX_BODY_BYTES,
      bodyTimeoutMs: parsed.HTTP_BODY_TIMEOUT_MS,
    },
    rateLimits: {
      loginFailuresPerAccount: rule(parsed.RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT),
      loginFailuresPerIp: rule(parsed.RATE_LIMIT_LOGIN_FAILURES_PER_IP),
      registrationsPerIp: rule(parsed.RATE_LIMIT_REGISTRATIONS_PER_IP),
      resendsPerIp: rule(parsed.RATE_LIMIT_RESENDS_PER_IP),
      verificationsPerIp: rule(parsed.RATE_LIMIT_VERIFICATIONS_PER_IP),
      verificationsPerAccount: rule(parsed.RATE_LIMIT_VERIFICATIONS_PER_ACCOUNT),
    },
    gameActionLimits: {
      vote: {
        limit: parsed.RATE_LIMIT_VOTES_PER_USER,
        windowMs: parsed.RATE_LIMIT_GAME_WINDOW_SECONDS * 1000,
      },
      join: {
        limit: parsed.RATE_LIMIT_JOINS_PER_USER,
        windowMs: parsed.RATE_LIMIT_GAME_WINDOW_SECONDS * 1000,
      },
    },
  };
}

/**
 * The gateway's variables in distributed mode: where each service and Redis answer, plus the
 * edge settings. Every problem is listed at once.
 */
export function gatewayConfig(env: Environment) {
  const [process, settings] = parseAll(
    () =>
      parseEnv(
        {
          PORT: envFields.port(8080),
          HOST: envFields.host(),
          LOG_LEVEL: envFields.logLevel(),
          NODE_ENV: envFields.nodeEnv(),
          AUTH_URL: envFields.url(),
          TOURNAMENT_URL: envFields.url(),
          GAME_ENGINE_URL: envFields.url(),
          ADS_URL: envFields.url(),
          NOTIFICATION_URL: envFields.url(),
          REDIS_URL: envFields.url(),
          KAFKA_BROKERS: envFields.brokers(),
          INSTANCE_ID: z.string().min(1).default(defaultInstanceId),
        },
        env,
      ),
    () => parseEnv(settingsShape, env),
  );
  if (settings.FAIR_PLAY_SECRET === undefined) {
    // Replicas must hash alike, and a restart must not break the links already stored.
    throw new ConfigError(['FAIR_PLAY_SECRET: required in distributed mode (32+ characters)']);
  }
  return { ...process, settings: settingsFrom(settings, process.NODE_ENV) };
}

export type GatewayConfig = ReturnType<typeof gatewayConfig>;
