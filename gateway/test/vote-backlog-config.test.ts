import { ConfigError } from '@underdog/kit';
import { gatewaySettings } from '../src/config';

describe('the votes back-pressure settings (VOTE_MAX_APPLY_LAG)', () => {
  it('is off unless a maximum apply lag is set', () => {
    expect(gatewaySettings({}, 'test').voteBacklog).toBeUndefined();
    expect(gatewaySettings({ VOTE_MAX_APPLY_LAG: '0' }, 'test').voteBacklog).toBeUndefined();
  });

  it('reads the maximum lag in messages and how often the lag is read', () => {
    expect(gatewaySettings({ VOTE_MAX_APPLY_LAG: '2500' }, 'test').voteBacklog).toEqual({
      maxMessages: 2_500,
      refreshMs: 250,
    });
    expect(
      gatewaySettings({ VOTE_MAX_APPLY_LAG: '100', VOTE_APPLY_LAG_REFRESH_MS: '50' }, 'test')
        .voteBacklog,
    ).toEqual({ maxMessages: 100, refreshMs: 50 });
  });

  it('refuses a negative or fractional lag and a refresh past 10 s', () => {
    expect(() => gatewaySettings({ VOTE_MAX_APPLY_LAG: '-1' }, 'test')).toThrow(ConfigError);
    expect(() => gatewaySettings({ VOTE_MAX_APPLY_LAG: '1.5' }, 'test')).toThrow(ConfigError);
    expect(() => gatewaySettings({ VOTE_APPLY_LAG_REFRESH_MS: '20000' }, 'test')).toThrow(
      ConfigError,
    );
  });
});
