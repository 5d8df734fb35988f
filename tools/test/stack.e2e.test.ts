import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { startStack, type Stack } from '../stack/stack';
import { chartDir, dashboardMetricNames } from './helm-support';

/**
 * The distributed mode on real servers: every service and the gateway as its own process, as
 * `npm run stack` runs them (here on the harness's Kafka, Redis, MongoDB-wire and SMTP servers).
 */
describe('the distributed stack', () => {
  let stack: Stack;
  const exits: string[] = [];

  beforeAll(async () => {
    stack = await startStack({
      infra: testInfra(),
      logDir: mkdtempSync(join(tmpdir(), 'underdog-stack-')),
      onUnexpectedExit: (name, code) => exits.push(`${name} exited with ${code}`),
    });
    await stack.waitUntilReady(120_000);
  }, 150_000);

  afterAll(() => stack?.stop());

  it('runs six processes, each answering /readyz with 200', async () => {
    expect(stack.processes.map((p) => p.name).sort()).toEqual(
      ['ads', 'auth', 'game-engine', 'gateway', 'notification', 'tournament'].sort(),
    );
    for (const proc of stack.processes) {
      const response = await fetch(`${proc.url}/readyz`);
      expect({ name: proc.name, status: response.status }).toEqual({
        name: proc.name,
        status: 200,
      });
      const report = (await response.json()) as { checks: Record<string, boolean> };
      expect(Object.values(report.checks).every(Boolean)).toBe(true);
    }
    expect(exits).toEqual([]);
  });

  it('reports the real infrastructure each service is connected to', async () => {
    const checks = async (name: string) => {
      const proc = stack.processes.find((p) => p.name === name)!;
      return ((await (await fetch(`${proc.url}/readyz`)).json()) as { checks: object }).checks;
    };
    expect(await checks('tournament')).toMatchObject({ mongo: true });
    expect(await checks('game-engine')).toMatchObject({ kafka: true, redis: true });
    expect(await checks('notification')).toMatchObject({ kafka: true });
  });

  it('answers GET /api/time at the gateway through Connect over HTTP to the tournament process', async () => {
    const before = Date.now();
    const response = await fetch(`${stack.gatewayUrl}/api/time`);
    expect(response.status).toBe(200);
    const { serverTime } = (await response.json()) as { serverTime: string };
    expect(Date.parse(serverTime)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(serverTime)).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it('exports every metric the Grafana dashboard charts from some process /metrics', async () => {
    const exported = new Map<string, string[]>();
    for (const proc of stack.processes) {
      const response = await fetch(`${proc.url}/metrics`);
      expect({ name: proc.name, status: response.status }).toEqual({
        name: proc.name,
        status: 200,
      });
      for (const [, metric] of (await response.text()).matchAll(/^# TYPE (\S+) /gm)) {
        if (metric) exported.set(metric, [...(exported.get(metric) ?? []), proc.name]);
      }
    }
    const dashboard = JSON.parse(
      readFileSync(join(chartDir, 'dashboards', 'underdog.json'), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const missing = dashboard.panels.flatMap((panel) =>
      panel.targets
        .flatMap((target) => dashboardMetricNames(target.expr))
        .filter((metric) => !exported.has(metric))
        .map((metric) => `${panel.title}: ${metric}`),
    );
    expect([...new Set(missing)]).toEqual([]);
    expect(exported.get('underdog_consumer_lag_messages')).toContain('game-engine');
  });
});
