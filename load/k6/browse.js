// (c) The browse mix: what visitors do between games — the tournament list, a tournament's
// statistics, the server time (spec §7 refetches it every 5 minutes). N virtual users ramp up
// over RAMP seconds, browse for DURATION seconds, with THINK seconds between pages.
import { check, sleep } from 'k6';
import { request } from './lib/api.js';
import { intEnv, stringEnv, target } from './lib/config.js';

// Checked when the script loads, so a wrong TARGET stops the run before it starts.
const { http: base } = target();
const users = intEnv('N', 10);
const ramp = intEnv('RAMP', 10);
const duration = intEnv('DURATION', 30);

export const options = {
  scenarios: {
    browse: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: `${ramp}s`, target: users },
        { duration: `${duration}s`, target: users },
      ],
      gracefulRampDown: '5s',
    },
  },
  thresholds: {
    http_req_failed: [`rate<${stringEnv('MAX_ERROR_RATE', '0.01')}`],
    'http_req_duration{name:/api/tournaments}': [`p(95)<${intEnv('LIST_P95_MS', 500)}`],
    'http_req_duration{name:/api/tournaments/{id}/statistics}': [
      `p(95)<${intEnv('STATISTICS_P95_MS', 500)}`,
    ],
    'http_req_duration{name:/api/time}': [`p(95)<${intEnv('TIME_P95_MS', 200)}`],
    checks: [`rate>${1 - Number(stringEnv('MAX_ERROR_RATE', '0.01'))}`],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max', 'count'],
};

export default function browse() {
  const device = { deviceId: `k6-browse-${__VU}` };
  const think = Number(stringEnv('THINK', '1'));

  const list = request(base, 'GET', '/api/tournaments', device);
  check(list, { 'tournament list 200': (r) => r.status === 200 });
  const tournaments = list.status === 200 ? list.json() : [];
  sleep(think);

  const id = stringEnv(
    'TOURNAMENT_ID',
    tournaments.length > 0
      ? tournaments[Math.floor(Math.random() * tournaments.length)].id
      : undefined,
  );
  if (id) {
    const statistics = request(base, 'GET', `/api/tournaments/${id}/statistics`, {
      ...device,
      tags: { name: '/api/tournaments/{id}/statistics' },
    });
    check(statistics, { 'statistics 200': (r) => r.status === 200 });
    sleep(think);
  }

  const time = request(base, 'GET', '/api/time', device);
  check(time, { 'server time 200': (r) => r.status === 200 && Boolean(r.json('serverTime')) });
  sleep(think);
}
