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

function rulesOf(...args: string[]): Rule[] {
  const found = render('--set', 'prometheusRule.enabled=true', ...args).filter(
    (m) => m.kind === 'PrometheusRule',
  ) as PrometheusRule[];
  expect(found.map((m) => m.metadata.name)).toEqual(['underdog-votes']);
  return found[0]!.spec.groups.flatMap((group) => group.rules);
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
    const watched = rulesOf().flatMap((rule) => dashboardMetricNames(rule.expr));
    expect(watched.filter((name) => !exported.has(name))).toEqual([]);
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
