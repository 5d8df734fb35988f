// Accounts, sessions and the tournament a live script plays, prepared in k6's setup().
//
// Players come from one of two places:
// - PLAYERS_FILE (an absolute path): a JSON array of { "email", "password" } of verified accounts,
//   e.g. written by seed-players.js; each is logged in with a device id of its own. This is the
//   way on a real cluster (load/README.md, "Pointing the scripts at a cluster").
// - otherwise N new accounts, registered through the API and verified with the codes read from
//   the development mailbox (GET /api/dev/mailbox): the standalone process (`npm start`) and any
//   deployment not running with NODE_ENV=production.
import { sleep } from 'k6';
import { batch, expectStatus, request, sessionCookieOf } from './api.js';
import { intEnv, stringEnv } from './config.js';

export const PLAYER_PASSWORD = 'load-pass-1';
const JOIN = 'mutation ($id: ID!) { joinTournament(tournamentId: $id) { isParticipant } }';

const playersFile = __ENV.PLAYERS_FILE ? JSON.parse(open(__ENV.PLAYERS_FILE)) : undefined;

function chunks(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function deviceOf(run, index) {
  return `k6-${run}-${index}`;
}

/** Logs in accounts that already exist and are verified. */
function loginPlayers(base, accounts, run, batchSize) {
  const players = [];
  for (const group of chunks(
    accounts.map((account, index) => ({ account, index })),
    batchSize,
  )) {
    const responses = batch(
      base,
      group.map(({ account, index }) => [
        'POST',
        '/api/login',
        {
          body: { email: account.email, password: account.password },
          deviceId: deviceOf(run, index),
        },
      ]),
      { name: 'setup:/api/login' },
    );
    responses.forEach((response, i) => {
      const { account, index } = group[i];
      expectStatus(response, 200, `login ${account.email}`);
      players.push({
        email: account.email,
        cookie: sessionCookieOf(response),
        deviceId: deviceOf(run, index),
      });
    });
  }
  return players;
}

/** The 6-digit codes the development mailbox holds for these addresses (the newest per address). */
function codesFromMailbox(base, emails) {
  const wanted = new Set(emails);
  const deadline = Date.now() + intEnv('MAILBOX_WAIT_SECONDS', 60) * 1000;
  for (;;) {
    const response = request(base, 'GET', '/api/dev/mailbox', {
      tags: { name: 'setup:/api/dev/mailbox' },
    });
    if (response.status === 404) {
      throw new Error(
        'no development mailbox on this target (NODE_ENV=production): seed verified accounts and pass PLAYERS_FILE (load/README.md)',
      );
    }
    expectStatus(response, 200, 'GET /api/dev/mailbox');
    const codes = {};
    for (const mail of response.json()) {
      if (!wanted.has(mail.to) || codes[mail.to]) continue; // newest first
      const match = /\b(\d{6})\b/.exec(mail.text);
      if (match) codes[mail.to] = match[1];
    }
    if (Object.keys(codes).length === wanted.size) return codes;
    if (Date.now() > deadline) {
      throw new Error(
        `the mailbox holds codes for ${Object.keys(codes).length} of ${wanted.size} new accounts`,
      );
    }
    sleep(0.5);
  }
}

/** Registers `count` accounts and verifies them with the mailed codes; returns their sessions. */
export function registerPlayers(base, count, run, batchSize) {
  const players = [];
  for (const group of chunks([...Array(count).keys()], batchSize)) {
    const responses = batch(
      base,
      group.map((index) => [
        'POST',
        '/api/register',
        {
          body: {
            email: `load-${run}-${index}@example.com`,
            displayName: `Load ${index}`,
            password: PLAYER_PASSWORD,
          },
          deviceId: deviceOf(run, index),
        },
      ]),
      { name: 'setup:/api/register' },
    );
    responses.forEach((response, i) => {
      const index = group[i];
      expectStatus(response, 200, `register player ${index}`);
      players.push({
        email: `load-${run}-${index}@example.com`,
        cookie: sessionCookieOf(response),
        deviceId: deviceOf(run, index),
      });
    });
  }
  const codes = codesFromMailbox(
    base,
    players.map((player) => player.email),
  );
  for (const group of chunks(players, batchSize)) {
    const responses = batch(
      base,
      group.map((player) => [
        'POST',
        '/api/verify-email',
        { body: { email: player.email, code: codes[player.email] }, session: player },
      ]),
      { name: 'setup:/api/verify-email' },
    );
    responses.forEach((response, i) => expectStatus(response, 200, `verify ${group[i].email}`));
  }
  return players;
}

/** N players with sessions: PLAYERS_FILE's accounts logged in, else new verified accounts. */
export function preparePlayers(base, count, run) {
  const batchSize = intEnv('SETUP_BATCH', 20);
  if (playersFile) {
    if (playersFile.length < count)
      throw new Error(`PLAYERS_FILE holds ${playersFile.length} accounts, N is ${count}`);
    return loginPlayers(base, playersFile.slice(0, count), run, batchSize);
  }
  return registerPlayers(base, count, run, batchSize);
}

/**
 * The tournament to play: TOURNAMENT_ID (upcoming, or live before round 1's voting ends), else a
 * new one created by ADMIN_EMAIL/ADMIN_PASSWORD that starts START_IN seconds from now with
 * ROUND_SECONDS of voting per round.
 */
export function prepareTournament(base, run, startInSeconds) {
  const existing = stringEnv('TOURNAMENT_ID', undefined);
  if (existing) {
    const response = expectStatus(
      request(base, 'GET', `/api/tournaments/${existing}`, {
        tags: { name: 'setup:/api/tournaments/{id}' },
      }),
      200,
      `tournament ${existing}`,
    );
    return response.json();
  }
  const email = stringEnv('ADMIN_EMAIL', undefined);
  const password = stringEnv('ADMIN_PASSWORD', undefined);
  if (!email || !password)
    throw new Error('set TOURNAMENT_ID, or ADMIN_EMAIL and ADMIN_PASSWORD to create a tournament');
  const adminDevice = `k6-${run}-admin`;
  const login = expectStatus(
    request(base, 'POST', '/api/login', { body: { email, password }, deviceId: adminDevice }),
    200,
    'admin login',
  );
  const admin = { cookie: sessionCookieOf(login), deviceId: adminDevice };
  const created = request(base, 'POST', '/api/tournaments', {
    session: admin,
    body: {
      title: `Load ${run}`,
      prize: '$0',
      startAt: new Date(Date.now() + startInSeconds * 1000).toISOString(),
      roundTimeSeconds: intEnv('ROUND_SECONDS', 10),
    },
  });
  return expectStatus(created, 201, 'create tournament').json();
}

/** Joins every player (GraphQL joinTournament over HTTP, like PLAY NOW), so votes measure votes. */
export function joinPlayers(base, players, tournamentId) {
  for (const group of chunks(players, intEnv('SETUP_BATCH', 20))) {
    const responses = batch(
      base,
      group.map((player) => [
        'POST',
        '/graphql',
        { body: { query: JOIN, variables: { id: tournamentId } }, session: player },
      ]),
      { name: 'setup:joinTournament' },
    );
    responses.forEach((response, i) => {
      expectStatus(response, 200, `join ${group[i].email}`);
      const joined = response.json();
      if (
        !joined.data ||
        !joined.data.joinTournament ||
        !joined.data.joinTournament.isParticipant
      ) {
        throw new Error(`join ${group[i].email}: ${response.body}`);
      }
    });
  }
}
