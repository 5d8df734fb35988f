import { ConfigError } from '@underdog/kit';
import { gatewayConfig, gatewaySettings } from '../src/config';

const distributed = {
  AUTH_URL: 'http://auth:8081',
  TOURNAMENT_URL: 'http://tournament:8082',
  GAME_ENGINE_URL: 'http://game-engine:8083',
  ADS_URL: 'http://ads:8084',
  NOTIFICATION_URL: 'http://notification:8085',
  REDIS_URL: 'redis://redis:6379',
  KAFKA_BROKERS: 'kafka-0:9092',
};

describe('FAIR_PLAY_SECRET (fair-play hashes)', () => {
  it('is required in distributed mode, where every replica must hash alike', () => {
    expect(() => gatewayConfig(distributed)).toThrow(ConfigError);
    expect(() => gatewayConfig(distributed)).toThrow(/FAIR_PLAY_SECRET/);
    const secret = 'x'.repeat(32);
    const config = gatewayConfig({ ...distributed, FAIR_PLAY_SECRET: secret });
    expect(config.settings).toMatchObject({
      fairPlaySecret: secret,
      fairPlaySecretGenerated: false,
    });
  });

  it('refuses a short one', () => {
    expect(() => gatewaySettings({ FAIR_PLAY_SECRET: 'short' }, 'test')).toThrow(
      /FAIR_PLAY_SECRET/,
    );
  });

  it('is made at boot in standalone mode when unset (the gateway warns)', () => {
    const one = gatewaySettings({}, 'development');
    const two = gatewaySettings({}, 'development');
    expect(one.fairPlaySecretGenerated).toBe(true);
    expect(one.fairPlaySecret).toMatch(/^[0-9a-f]{64}$/);
    expect(one.fairPlaySecret).not.toBe(two.fairPlaySecret);
  });
});
