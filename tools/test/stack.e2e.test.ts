import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testInfra } from '@underdog/harness';
import { AuthService, Role } from '@underdog/proto';
import {
  Code,
  SERVICE_CREDENTIAL_REFUSED,
  createClient,
  createHttpTransport,
  errorReason,
  type ConnectError,
} from '@underdog/rpc';
import { waitFor } from '@underdog/test-support';
import { startStack, type Stack } from '../stack/stack';
import { chartDir, dashboardMetricNames } from './helm-support';

/**
 * The distributed mode on real servers: every service and the gateway as its own process, as
 * `npm run stack` runs them (here on the harness's Kafka, Redis, MongoDB-wire and SMTP servers).
 */
/** The fields of a process's JSON log line that these tests read. */
interface LogLine {
  service?: string;
  requestId?: string;
  path?: string;
  status?: number;
}

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

  it('refuses SetRole at the auth process from a caller without the service key, and logs it', async () => {
    const auth = stack.processes.find((p) => p.name === 'auth')!;
    // Signed, but with a key the stack does not hold: what any other pod could do at best.
    const stranger = createClient(
      AuthService,
      createHttpTransport(auth.url, {
        name: 'gateway',
        secret: `not-the-stack-key-${randomUUID()}`,
      }),
    );
    const refused = await stranger.setRole({ email: 'anyone@example.com', role: Role.ADMIN }).then(
      () => 'answered',
      (error: unknown) => [(error as ConnectError).code, errorReason(error)],
    );
    expect(refused).toEqual([Code.Unauthenticated, SERVICE_CREDENTIAL_REFUSED]);
    await waitFor(() =>
      readFileSync(auth.logFile, 'utf8').includes(
        '"msg":"internal call refused: no valid service credential"',
      ),
    );
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

  it('follows one request id (sent, or made up) from the gateway into the auth process: log lines, error body, response header', async () => {
    const logOf = (name: string) => stack.processes.find((p) => p.name === name)!.logFile;
    /** The JSON log lines of a process that carry `requestId`, waiting up to 10 s for `want`. */
    async function linesWith(name: string, requestId: string, want: (line: LogLine) => boolean) {
      const read = () =>
        readFileSync(logOf(name), 'utf8')
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as LogLine)
          .filter((line) => line.requestId === requestId);
      // Not there in time: the lines there are, for the caller's expectation to show.
      return waitFor(() => read().some(want) && read(), {
        message: `${name}'s log line for ${requestId}`,
        timeoutMs: 10_000,
        intervalMs: 100,
      }).catch(read);
    }
    // A failing call as the spec's client makes it: a wrong code for an address nobody has.
    const verify = (headers: Record<string, string>) =>
      fetch(`${stack.gatewayUrl}/api/verify-email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-device-id': 'device-e2e', ...headers },
        body: JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, code: '123456' }),
      });

    const sent = `e2e-${randomUUID()}`;
    const withId = await verify({ 'x-request-id': sent });
    const withoutId = await verify({});
    const madeUp = withoutId.headers.get('x-request-id') ?? '';
    expect(madeUp).toMatch(/^[0-9a-f-]{36}$/);
    expect(madeUp).not.toBe(sent);

    for (const [response, requestId] of [
      [withId, sent],
      [withoutId, madeUp],
    ] as const) {
      expect(response.status).toBe(400);
      expect(response.headers.get('x-request-id')).toBe(requestId);
      expect(await response.json()).toEqual({
        message: 'Invalid verification code',
        code: 'CODE_INVALID',
        requestId,
      });
      const gatewayLine = (line: LogLine) =>
        line.service === 'gateway' && line.path === '/api/verify-email' && line.status === 400;
      const authLine = (line: LogLine) =>
        line.service === 'auth' &&
        line.path === '/underdog.auth.v1.AuthService/VerifyEmail' &&
        line.status === 400;
      expect((await linesWith('gateway', requestId, gatewayLine)).filter(gatewayLine)).toHaveLength(
        1,
      );
      expect((await linesWith('auth', requestId, authLine)).filter(authLine)).toHaveLength(1);
    }
  });
});
