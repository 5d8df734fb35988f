import { ConfigError } from '@underdog/kit';
import { gatewayConfig, gatewaySettings } from '../src/config';

const urls = {
  AUTH_URL: 'http://auth:8081',
  TOURNAMENT_URL: 'http://tournament:8082',
  GAME_ENGINE_URL: 'http://game-engine:8083',
  ADS_URL: 'http://ads:8084',
  NOTIFICATION_URL: 'http://notification:8085',
  REDIS_URL: 'redis://redis:6379',
};
// Required in distributed mode (fair-play-config.test.ts); a plain setting, not an URL.
const secret = { FAIR_PLAY_SECRET: 'a-test-fair-play-secret-of-32-characters' };
const kafka = { KAFKA_BROKERS: 'kafka-0:9092,kafka-1:9092' };

/** The variables a ConfigError names, sorted. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    gatewayConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.problems.map((problem) => problem.split(':')[0] ?? problem).sort();
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('gateway configuration', () => {
  it('defaults to the documented limits, plain-HTTP cookie and no trusted proxy', () => {
    const settings = gatewaySettings({}, 'development');
    const window = 15 * 60_000;
    expect(settings).toEqual({
      cookieSecure: false,
      publicOrigins: [],
      trustProxy: 0,
      devMailbox: true,
      introspection: true,
      suggestions: true,
      benchmarkSeed: false,
      fairPlaySecret: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      fairPlaySecretGenerated: true,
      webSocket: {
        maxPayloadBytes: 65_536,
        maxConnectionsPerAddress: 200,
        capacity: 10_000,
        fullRetrySeconds: 10,
        visitorShare: 0.1,
        maxConnectionsPerPrefix: 1_000,
        firstMessageTimeoutMs: 5_000,
        maxSubscriptionsPerSocket: 4,
      },
      voteWithdrawal: { replicas: 0, waitMs: 500 },
      http: { maxBodyBytes: 102_400, bodyTimeoutMs: 10_000 },
      rateLimits: {
        loginFailuresPerAccount: { limit: 10, windowMs: window },
        loginFailuresPerIp: { limit: 50, windowMs: window },
        registrationsPerIp: { limit: 20, windowMs: window },
        resendsPerIp: { limit: 10, windowMs: window },
        verificationsPerIp: { limit: 50, windowMs: window },
        verificationsPerAccount: { limit: 10, windowMs: window },
      },
      gameActionLimits: {
        vote: { limit: 60, windowMs: 10_000 },
        join: { limit: 30, windowMs: 10_000 },
      },
    });
  });

  it('takes lower limits and a shorter window from the environment', () => {
    const settings = gatewaySettings(
      { RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: '3', RATE_LIMIT_WINDOW_SECONDS: '60' },
      'test',
    );
    expect(settings.rateLimits.loginFailuresPerAccount).toEqual({ limit: 3, windowMs: 60_000 });
  });

  it('hides the mailbox, introspection and field suggestions in production', () => {
    expect(gatewaySettings({}, 'production')).toMatchObject({
      devMailbox: false,
      introspection: false,
      suggestions: false,
    });
  });

  it('mounts the benchmark seeding only with BENCHMARK_SEED=on, and never in production', () => {
    expect(gatewaySettings({ BENCHMARK_SEED: 'on' }, 'development').benchmarkSeed).toBe(true);
    expect(() => gatewaySettings({ BENCHMARK_SEED: 'on' }, 'production')).toThrow(ConfigError);
    expect(() => gatewaySettings({ BENCHMARK_SEED: 'yes' }, 'test')).toThrow(ConfigError);
  });

  it('takes the WebSocket frame limit from the environment, refusing tiny ones', () => {
    expect(gatewaySettings({ WEBSOCKET_MAX_PAYLOAD_BYTES: '1048576' }, 'test').webSocket).toEqual({
      maxPayloadBytes: 1_048_576,
      maxConnectionsPerAddress: 200,
      capacity: 10_000,
      fullRetrySeconds: 10,
      visitorShare: 0.1,
      maxConnectionsPerPrefix: 1_000,
      firstMessageTimeoutMs: 5_000,
      maxSubscriptionsPerSocket: 4,
    });
    expect(() => gatewaySettings({ WEBSOCKET_MAX_PAYLOAD_BYTES: '10' }, 'test')).toThrow(
      ConfigError,
    );
  });

  it('takes the per-address WebSocket cap from the environment; 0, or the benchmark seam, lifts it', () => {
    const cap = (env: Record<string, string>, nodeEnv: 'test' | 'development' = 'test') =>
      gatewaySettings(env, nodeEnv).webSocket.maxConnectionsPerAddress;
    expect(cap({ WEBSOCKET_MAX_CONNECTIONS_PER_IP: '8' })).toBe(8);
    expect(cap({ WEBSOCKET_MAX_CONNECTIONS_PER_IP: '0' })).toBe(0);
    expect(cap({ BENCHMARK_SEED: 'on' }, 'development')).toBe(0);
    expect(
      cap({ BENCHMARK_SEED: 'on', WEBSOCKET_MAX_CONNECTIONS_PER_IP: '50' }, 'development'),
    ).toBe(50);
    expect(() => cap({ WEBSOCKET_MAX_CONNECTIONS_PER_IP: '-1' })).toThrow(ConfigError);
  });

  it('takes the waiting room and the per-socket caps from the environment (issue 37 points 3 and 4)', () => {
    const webSocket = (env: Record<string, string>, nodeEnv: 'test' | 'development' = 'test') =>
      gatewaySettings(env, nodeEnv).webSocket;
    expect(
      webSocket({
        WEBSOCKET_VISITOR_SHARE: '0.25',
        WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: '300',
        WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: '2000',
        WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET: '6',
      }),
    ).toMatchObject({
      visitorShare: 0.25,
      maxConnectionsPerPrefix: 300,
      firstMessageTimeoutMs: 2_000,
      maxSubscriptionsPerSocket: 6,
    });
    expect(webSocket({ BENCHMARK_SEED: 'on' }, 'development').maxConnectionsPerPrefix).toBe(0);
    // Lifting the per-address cap lifts the network's too, unless it is set.
    expect(webSocket({ WEBSOCKET_MAX_CONNECTIONS_PER_IP: '0' }).maxConnectionsPerPrefix).toBe(0);
    expect(
      webSocket({
        WEBSOCKET_MAX_CONNECTIONS_PER_IP: '0',
        WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: '9',
      }).maxConnectionsPerPrefix,
    ).toBe(9);
    for (const env of [
      { WEBSOCKET_VISITOR_SHARE: '1.5' } as Record<string, string>,
      { WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: '-1' },
      { WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: '10' },
      { WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET: '0' },
    ]) {
      expect(() => webSocket(env)).toThrow(ConfigError);
    }
  });

  it('takes the gateway capacity and its retry hint from the environment; 0, or the benchmark seam, lifts the cap', () => {
    const webSocket = (env: Record<string, string>, nodeEnv: 'test' | 'development' = 'test') =>
      gatewaySettings(env, nodeEnv).webSocket;
    expect(
      webSocket({ WEBSOCKET_CAPACITY: '2500', WEBSOCKET_FULL_RETRY_SECONDS: '30' }),
    ).toMatchObject({ capacity: 2500, fullRetrySeconds: 30 });
    expect(webSocket({ WEBSOCKET_CAPACITY: '0' }).capacity).toBe(0);
    expect(webSocket({ BENCHMARK_SEED: 'on' }, 'development').capacity).toBe(0);
    expect(
      webSocket({ BENCHMARK_SEED: 'on', WEBSOCKET_CAPACITY: '500' }, 'development'),
    ).toMatchObject({ capacity: 500 });
    const refused = (env: Record<string, string>) => {
      try {
        webSocket(env);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    };
    for (const value of ['-1', '1.5', 'many']) {
      expect(refused({ WEBSOCKET_CAPACITY: value })).toEqual([
        expect.stringMatching(/^WEBSOCKET_CAPACITY: /),
      ]);
    }
    for (const value of ['0', '601', 'soon']) {
      expect(refused({ WEBSOCKET_FULL_RETRY_SECONDS: value })).toEqual([
        expect.stringMatching(/^WEBSOCKET_FULL_RETRY_SECONDS: /),
      ]);
    }
    // A distributed gateway lists them with every other problem at boot.
    expect(problemsOf({ ...urls, ...kafka, ...secret, WEBSOCKET_CAPACITY: 'x' })).toEqual([
      'WEBSOCKET_CAPACITY',
    ]);
  });

  it('takes the request body limit and timeout from the environment', () => {
    expect(
      gatewaySettings({ HTTP_MAX_BODY_BYTES: '4096', HTTP_BODY_TIMEOUT_MS: '2500' }, 'test').http,
    ).toEqual({ maxBodyBytes: 4096, bodyTimeoutMs: 2500 });
    expect(() => gatewaySettings({ HTTP_BODY_TIMEOUT_MS: '5' }, 'test')).toThrow(ConfigError);
  });

  it('takes the replicas a vote withdrawal waits for, and how long, from the environment', () => {
    expect(
      gatewaySettings({ VOTE_WITHDRAWAL_REPLICAS: '1', VOTE_WITHDRAWAL_WAIT_MS: '250' }, 'test')
        .voteWithdrawal,
    ).toEqual({ replicas: 1, waitMs: 250 });
    expect(() => gatewaySettings({ VOTE_WITHDRAWAL_REPLICAS: '-1' }, 'test')).toThrow(ConfigError);
    // WAIT's 0 would block for ever.
    expect(() => gatewaySettings({ VOTE_WITHDRAWAL_WAIT_MS: '0' }, 'test')).toThrow(ConfigError);
  });

  it('needs every service URL, Redis and Kafka in distributed mode, listing all that are missing', () => {
    expect(problemsOf({ TOURNAMENT_URL: urls.TOURNAMENT_URL, TRUST_PROXY: 'yes' })).toEqual([
      'ADS_URL',
      'AUTH_URL',
      'GAME_ENGINE_URL',
      'KAFKA_BROKERS',
      'NOTIFICATION_URL',
      'REDIS_URL',
      'TRUST_PROXY',
    ]);
  });

  it('reads a complete distributed environment', () => {
    const config = gatewayConfig({
      ...urls,
      ...secret,
      ...kafka,
      INSTANCE_ID: 'gateway-0',
      NODE_ENV: 'production',
      COOKIE_SECURE: 'true',
      TRUST_PROXY: '1',
    });
    expect(config).toMatchObject({
      ...urls,
      KAFKA_BROKERS: ['kafka-0:9092', 'kafka-1:9092'],
      INSTANCE_ID: 'gateway-0',
      NODE_ENV: 'production',
      PORT: 8080,
    });
    expect(config.settings).toMatchObject({ cookieSecure: true, trustProxy: 1, devMailbox: false });
  });
});
