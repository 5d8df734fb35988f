// Seeds N verified accounts for the live scripts on a deployment with the development mailbox
// (any NODE_ENV but production): registers them, verifies them with the mailed codes, and writes
// their e-mails and password to PLAYERS_OUT (default players.json) for PLAYERS_FILE. Run it before
// a load test, not during it: registration hashes passwords with argon2 on purpose.
import { intEnv, runId, stringEnv, target } from './lib/config.js';
import { PLAYER_PASSWORD, registerPlayers } from './lib/setup.js';

const { http: base } = target(); // checked when the script loads

export const options = { vus: 1, iterations: 1, setupTimeout: stringEnv('SETUP_TIMEOUT', '30m') };

export function setup() {
  const players = registerPlayers(base, intEnv('N', 10), runId(), intEnv('SETUP_BATCH', 20));
  return players.map((player) => ({ email: player.email, password: PLAYER_PASSWORD }));
}

export default function noop() {}

export function handleSummary(data) {
  const accounts = data.setup_data || [];
  return {
    [stringEnv('PLAYERS_OUT', 'players.json')]: JSON.stringify(accounts),
    stdout: `seeded ${accounts.length} verified accounts → ${stringEnv('PLAYERS_OUT', 'players.json')}\n`,
  };
}
