// The Redis servers' settings the chart ships for whatever runs Redis (issue 38): AOF everysec,
// min-replicas-to-write off with one replica (docs/deploy.md says why), as a ConfigMap the
// redis-operator's additionalRedisConfig can name.
import { Helm, chartDir } from './helm-support';

interface ConfigMap {
  kind: string;
  metadata: { name: string; namespace: string };
  data: Record<string, string>;
}

let helm: Helm;

beforeAll(() => {
  helm = new Helm();
}, 60 * 60_000);

afterAll(() => helm?.dispose());

function redisConfig(...args: string[]): ConfigMap | undefined {
  const manifests = helm.parseYaml(
    helm.run([
      'template',
      'underdog',
      chartDir,
      '--namespace',
      'underdog',
      '--kube-version',
      '1.31.0',
      ...args,
    ]),
  ) as ConfigMap[];
  return manifests.find(
    (m) => m.kind === 'ConfigMap' && m.metadata.name === 'underdog-redis-config',
  );
}

/** The directives of a redis.conf, comments and blank lines left out. */
const directives = (conf: string) =>
  conf
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

describe("the Redis servers' settings (redis.serverConfig)", () => {
  it('are not rendered unless redis.serverConfig.create', () => {
    expect(redisConfig()).toBeUndefined();
  });

  it('turn AOF on with fsync every second, leave min-replicas-to-write off for one replica, and resync a replica at once', () => {
    const config = redisConfig('--set', 'redis.serverConfig.create=true');
    expect(config?.metadata.namespace).toBe('underdog');
    expect(directives(config!.data['redis-additional.conf'] ?? '')).toEqual([
      'appendonly yes',
      'appendfsync everysec',
      'stop-writes-on-bgsave-error no',
      'min-replicas-to-write 0',
      'min-replicas-max-lag 10',
      'repl-diskless-sync-delay 0',
    ]);
  });

  it('follow the values: fsync always, one replica required with two or more', () => {
    const config = redisConfig(
      '--set',
      'redis.serverConfig.create=true',
      '--set',
      'redis.serverConfig.appendfsync=always',
      '--set',
      'redis.serverConfig.minReplicasToWrite=1',
      '--set',
      'redis.serverConfig.minReplicasMaxLag=5',
    );
    expect(directives(config!.data['redis-additional.conf'] ?? '')).toEqual(
      expect.arrayContaining([
        'appendfsync always',
        'min-replicas-to-write 1',
        'min-replicas-max-lag 5',
      ]),
    );
  });

  it('refuse appendfsync no (a crash would lose up to 30 s of live state)', () => {
    expect(() =>
      redisConfig(
        '--set',
        'redis.serverConfig.create=true',
        '--set',
        'redis.serverConfig.appendfsync=no',
      ),
    ).toThrow(/appendfsync/);
  });
});
