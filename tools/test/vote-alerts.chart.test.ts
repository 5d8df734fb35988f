// The chart's vote alerts (issue 35): a round's close waits for every acknowledged vote, and the
// gateways' back-pressure bounds that wait. Renders the PrometheusRule with helm and checks each
// alert watches a metric the processes really export, in the release's namespace.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Helm, chartDir, dashboardMetricNames, repoRoot } from './helm-support';

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
}

interface PrometheusRule {
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: { groups: { name: string; rules: Rule[] }[] };
}

interface ConfigMap {
  kind: string;
  metadata: { name: string };
  data: Record<string, string>;
}

let helm: Helm;

beforeAll(() => {
  helm = new Helm();
}, 60 * 60_000);

afterAll(() => helm?.dispose());

function render(...args: string[]): { kind: string; metadata: { name: string } }[] {
  return helm.parseYaml(
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
  );
}

function groupsOf(...args: string[]): PrometheusRule['spec']['groups'] {
  const found = render('--set', 'prometheusRule.enabled=true', ...args).filter(
    (m) => m.kind === 'PrometheusRule',
  ) as PrometheusRule[];
  expect(found.map((m) => m.metadata.name)).toEqual(['underdog-votes']);
  return found[0]!.spec.groups;
}

/** The rules of one group (the vote alerts by default), or of every group. */
function rulesOf(...args: string[]): Rule[] {
  return groupsOf(...args)
    .filter((group) => group.name === 'underdog-votes')
    .flatMap((group) => group.rules);
}

/** The reliability alerts (issue 38). */
function reliabilityRulesOf(...args: string[]): Rule[] {
  return groupsOf(...args)
    .filter((group) => group.name === 'underdog-reliability')
    .flatMap((group) => group.rules);
}

/** Every `underdog_…` metric name a process registers (`name: 'underdog_…'` in its sources). */
function exportedMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const [, name] of readFileSync(path, 'utf8').matchAll(
          /name: '(underdog_[a-z0-9_]+)'/g,
        )) {
          names.add(name!);
        }
      }
    }
  };
  for (const dir of ['gateway/src', 'services/game-engine/src', 'packages']) {
    walk(join(repoRoot, dir));
  }
  return names;
}

describe('the vote alerts (PrometheusRule)', () => {
  it('is not rendered unless prometheusRule.enabled', () => {
    expect(render().filter((m) => m.kind === 'PrometheusRule')).toEqual([]);
  });

  it('alerts on votes applied late, back-pressure refusals and the apply lag, in the release namespace', () => {
    const rules = rulesOf();
    expect(rules.map((rule) => [rule.alert, rule.for, rule.labels.severity])).toEqual([
      ['UnderdogRoundAwaitingVotes', '1m', 'critical'],
      ['UnderdogVotesAppliedLate', '5m', 'warning'],
      ['UnderdogVotesBackPressure', '2m', 'warning'],
      ['UnderdogVotesApplyLag', '2m', 'warning'],
    ]);
    const byAlert = Object.fromEntries(rules.map((rule) => [rule.alert, rule.expr]));
    expect(byAlert.UnderdogRoundAwaitingVotes).toBe(
      'max(underdog_rounds_awaiting_votes{namespace="underdog"}) > 0',
    );
    expect(byAlert.UnderdogVotesAppliedLate).toBe(
      'histogram_quantile(0.99, sum by (le) (rate(underdog_votes_wait_seconds_bucket{namespace="underdog"}[10m]))) > 10',
    );
    expect(byAlert.UnderdogVotesBackPressure).toBe(
      'sum(rate(underdog_votes_backpressure_refusals_total{namespace="underdog"}[5m])) > 1',
    );
    // 80 % of the gateways' refusal threshold (2500 by default).
    expect(byAlert.UnderdogVotesApplyLag).toBe(
      'max by (partition) (underdog_votes_apply_lag_messages{namespace="underdog"}) > 2000',
    );
  });

  it('watches only metrics the processes export', () => {
    const exported = exportedMetrics();
    const watched = [
      ...rulesOf(),
      ...reliabilityRulesOf(
        '--set',
        'redis.sentinel.enabled=true',
        '--set',
        'redis.sentinel.hosts[0]=sentinel:26379',
      ),
    ].flatMap((rule) => dashboardMetricNames(rule.expr));
    expect(watched.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('alerts on consumer lag, VOTE_NOT_RECORDED refusals and a parked vote message (issue 38)', () => {
    const rules = reliabilityRulesOf();
    expect(rules.map((rule) => [rule.alert, rule.for, rule.labels.severity])).toEqual([
      ['UnderdogConsumerLag', '2m', 'warning'],
      ['UnderdogVotesNotRecorded', '2m', 'warning'],
      ['UnderdogVoteParked', '0m', 'critical'],
    ]);
    const byAlert = Object.fromEntries(rules.map((rule) => [rule.alert, rule.expr]));
    expect(byAlert.UnderdogConsumerLag).toBe(
      'max by (topic, group) (underdog_consumer_lag_messages{namespace="underdog"}) > 1000',
    );
    expect(byAlert.UnderdogVotesNotRecorded).toBe(
      'sum(rate(underdog_votes_refused_total{namespace="underdog",reason="VOTE_NOT_RECORDED"}[5m])) > 1',
    );
    expect(byAlert.UnderdogVoteParked).toBe(
      'sum by (reason) (increase(underdog_votes_parked_total{namespace="underdog"}[10m])) > 0',
    );
    // The refusal reason the gateway really counts (its public error code).
    expect(readFileSync(join(repoRoot, 'gateway', 'src', 'games.ts'), 'utf8')).toContain(
      "reason: isAppError(error) ? error.publicCode : 'INTERNAL'",
    );
  });

  it("alerts on a Sentinel failover, with Sentinel: the Sentinels' config epoch rose within 10 minutes", () => {
    const rules = reliabilityRulesOf(
      '--set',
      'redis.sentinel.enabled=true',
      '--set',
      'redis.sentinel.hosts[0]=sentinel:26379',
      '--set',
      'redis.sentinel.masterName=primary-1',
    );
    const failover = rules.find((rule) => rule.alert === 'UnderdogRedisFailover');
    expect(failover).toMatchObject({ for: '0m', labels: { severity: 'warning' } });
    expect(failover!.expr).toBe(
      'max by (master_name) (redis_sentinel_master_config_epoch{master_name="primary-1"}) > max by (master_name) (redis_sentinel_master_config_epoch{master_name="primary-1"} offset 10m)',
    );
  });

  it('follows the reliability thresholds set in values', () => {
    const expr = (alert: string, ...args: string[]) =>
      reliabilityRulesOf(...args).find((rule) => rule.alert === alert)!.expr;
    expect(expr('UnderdogConsumerLag', '--set', 'prometheusRule.consumerLagMessages=250')).toMatch(
      /> 250$/,
    );
    expect(
      expr(
        'UnderdogVotesNotRecorded',
        '--set-json',
        'prometheusRule.votesNotRecordedPerSecond=0.5',
      ),
    ).toMatch(/> 0.5$/);
  });

  it('follows the thresholds set in values', () => {
    const lag = (...args: string[]) =>
      rulesOf(...args).find((rule) => rule.alert === 'UnderdogVotesApplyLag')!.expr;
    expect(lag('--set', 'gateway.voteBackPressure.maxApplyLag=10000')).toMatch(/> 8000$/);
    expect(lag('--set', 'gateway.voteBackPressure.maxApplyLag=0')).toMatch(/> 2000$/);
    expect(lag('--set', 'prometheusRule.applyLagMessages=500')).toMatch(/> 500$/);
    const wait = rulesOf('--set', 'prometheusRule.votesWaitSeconds=30').find(
      (rule) => rule.alert === 'UnderdogVotesAppliedLate',
    )!.expr;
    expect(wait).toMatch(/> 30$/);
  });

  it("passes the gateways' back-pressure settings to their environment", () => {
    const config = (...args: string[]) =>
      (render(...args) as ConfigMap[]).find(
        (m) => m.kind === 'ConfigMap' && m.metadata.name === 'underdog-gateway',
      )!.data;
    expect(config()).toMatchObject({
      VOTE_MAX_APPLY_LAG: '2500',
      VOTE_APPLY_LAG_REFRESH_MS: '250',
    });
    expect(config('--set', 'gateway.voteBackPressure.maxApplyLag=0')).toMatchObject({
      VOTE_MAX_APPLY_LAG: '0',
    });
  });
});
