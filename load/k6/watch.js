// (a') The audience of a live round: N visitors (no account) watch a tournament on `/ws` for
// DURATION seconds, each socket measuring the results fan-out like a player. It needs no accounts,
// so it reaches large N quickly: used to measure the gateway's memory per socket and its cost per
// message delivered (docs/capacity.md). TOURNAMENT_ID, else the first tournament of the list.
// PROTOCOL=graphql-ws watches through the gameEvents subscription on `/graphql` instead, as the
// web app does.
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
const protocol = stringEnv('PROTOCOL', 'ws');
if (protocol !== 'ws' && protocol !== 'graphql-ws') {
  throw new Error(`PROTOCOL must be ws or graphql-ws, got "${protocol}"`);
}
const GAME_EVENTS = `subscription ($id: ID!) {
  gameEvents(tournamentId: $id) {
    __typename
    ... on RoundVotingStarted { roundNumber phaseEndsAt }
    ... on RoundResults { roundNumber }
  }
}`;

const resultsFanout = new Trend('results_fanout_ms', true);
const messages = new Counter('game_messages');
/** Subscriptions answered with the game's snapshot (game_state_update / GameSnapshot). */
const snapshots = new Counter('snapshots');
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
        const graphql = protocol === 'graphql-ws';
        const socket = graphql
          ? new WebSocket(`${wsBase}/graphql`, 'graphql-transport-ws', {
              headers: { Origin: origin, 'X-Device-ID': `k6-watch-${index}` },
              tags: { name: '/graphql (watch)' },
            })
          : new WebSocket(`${wsBase}/ws?deviceId=k6-watch-${index}`, null, {
              headers: { Origin: origin },
              tags: { name: '/ws (watch)' },
            });
        const stop = setTimeout(() => socket.close(), Math.max(0, endAt - Date.now()));
        const send = (message) => socket.send(JSON.stringify(message));
        /** One game message, named as on /ws whatever the protocol. */
        const onGame = (type, roundNumber, phaseEndsAt) => {
          messages.add(1, { type });
          if (type === 'game_state_update') snapshots.add(1);
          if (type === 'round_voting_started' && phaseEndsAt) {
            votingEndsAt[roundNumber] = Date.parse(phaseEndsAt);
          } else if (type === 'results_started' && votingEndsAt[roundNumber]) {
            resultsFanout.add(Date.now() + data.clockOffset - votingEndsAt[roundNumber] - graceMs);
          } else if (type === 'game_finished') {
            socket.close();
          }
        };
        const typeOf = {
          RoundVotingStarted: 'round_voting_started',
          RoundResults: 'results_started',
          GameSnapshot: 'game_state_update',
          GameEnded: 'game_finished',
        };
        socket.addEventListener('open', () => {
          opened = true;
          connectFailed.add(false);
          if (graphql) send({ type: 'connection_init', payload: {} });
          else send({ type: 'subscribe_tournament', tournamentId: data.tournamentId });
        });
        socket.addEventListener('message', (event) => {
          const message = JSON.parse(event.data);
          if (!graphql) {
            onGame(message.type, message.roundNumber, message.phaseEndsAt);
          } else if (message.type === 'connection_ack') {
            const variables = { id: data.tournamentId };
            send({ id: 'game', type: 'subscribe', payload: { query: GAME_EVENTS, variables } });
          } else if (message.type === 'ping') {
            send({ type: 'pong' });
          } else if (message.type === 'next' && message.payload.data) {
            const game = message.payload.data.gameEvents;
            onGame(typeOf[game.__typename] || game.__typename, game.roundNumber, game.phaseEndsAt);
          } else {
            messages.add(1, { type: message.type });
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
