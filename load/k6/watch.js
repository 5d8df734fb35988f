// (a') The audience of a live round: N visitors (no account) watch a tournament on `/ws` for
// DURATION seconds, each socket measuring the results fan-out like a player. It needs no accounts,
// so it reaches large N quickly: used to measure the gateway's memory per socket and its cost per
// message delivered (docs/capacity.md). TOURNAMENT_ID, else the first tournament of the list.
import { WebSocket } from 'k6/websockets';
import { Counter, Rate, Trend } from 'k6/metrics';
import { expectStatus, request, serverClockOffset } from './lib/api.js';
import { intEnv, stringEnv, target } from './lib/config.js';

// Checked when the script loads, so a wrong TARGET stops the run before it starts.
const { http: origin, ws: wsBase } = target();
const watchers = intEnv('N', 10);
const perVu = Math.max(1, intEnv('SOCKETS_PER_VU', 100));
const rampSeconds = intEnv('RAMP', 10);
const holdSeconds = intEnv('DURATION', 60);
const graceMs = intEnv('GRACE_MS', 1000);

const resultsFanout = new Trend('results_fanout_ms', true);
const messages = new Counter('game_messages');
const connectFailed = new Rate('ws_connect_failed');

export const options = {
  scenarios: {
    watchers: {
      executor: 'per-vu-iterations',
      vus: Math.ceil(watchers / perVu),
      iterations: 1,
      maxDuration: `${rampSeconds + holdSeconds + 60}s`,
    },
  },
  thresholds: {
    results_fanout_ms: [`p(95)<${intEnv('FANOUT_P95_MS', 1000)}`],
    ws_connect_failed: [`rate<${stringEnv('MAX_ERROR_RATE', '0.01')}`],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(95)', 'p(99)', 'max', 'count'],
};

export function setup() {
  let tournamentId = stringEnv('TOURNAMENT_ID', undefined);
  if (!tournamentId) {
    const list = expectStatus(
      request(origin, 'GET', '/api/tournaments'),
      200,
      'tournament list',
    ).json();
    if (list.length === 0)
      throw new Error('no tournament to watch: create one or pass TOURNAMENT_ID');
    tournamentId = list[0].id;
  }
  return { tournamentId, clockOffset: serverClockOffset(origin) };
}

export default function watch(data) {
  const first = (__VU - 1) * perVu;
  const last = Math.min(watchers, first + perVu);
  const endAt = Date.now() + (rampSeconds + holdSeconds) * 1000;
  for (let index = first; index < last; index += 1) {
    setTimeout(
      () => {
        let opened = false;
        const votingEndsAt = {};
        const socket = new WebSocket(`${wsBase}/ws?deviceId=k6-watch-${index}`, null, {
          headers: { Origin: origin },
          tags: { name: '/ws (watch)' },
        });
        const stop = setTimeout(() => socket.close(), Math.max(0, endAt - Date.now()));
        socket.addEventListener('open', () => {
          opened = true;
          connectFailed.add(false);
          socket.send(
            JSON.stringify({ type: 'subscribe_tournament', tournamentId: data.tournamentId }),
          );
        });
        socket.addEventListener('message', (event) => {
          const message = JSON.parse(event.data);
          messages.add(1, { type: message.type });
          if (message.type === 'round_voting_started' && message.phaseEndsAt) {
            votingEndsAt[message.roundNumber] = Date.parse(message.phaseEndsAt);
          } else if (message.type === 'results_started' && votingEndsAt[message.roundNumber]) {
            resultsFanout.add(
              Date.now() + data.clockOffset - votingEndsAt[message.roundNumber] - graceMs,
            );
          } else if (message.type === 'game_finished') {
            socket.close();
          }
        });
        socket.addEventListener('error', () => {
          if (!opened) connectFailed.add(true);
        });
        socket.addEventListener('close', () => clearTimeout(stop));
      },
      (rampSeconds * 1000 * index) / watchers,
    );
  }
}
