/** The round bench's command line: `pnpm bench:round -- --players N …` (load/README.md). */
import { parseArgs } from 'node:util';
import { commandArgs, wholeNumber } from './cli';

/** The bench's options, checked: players, the round's time and spread, slots, producers, records. */
export function options() {
  const { values } = parseArgs({
    args: commandArgs(),
    options: {
      players: { type: 'string', default: '100000' },
      // The tournament's round time (the voting window), 5–120 s as the product allows.
      'round-seconds': { type: 'string', default: '15' },
      // Share of the window the votes are spread over (the rest is the last votes' margin).
      spread: { type: 'string', default: '0.8' },
      // GAME_VOTE_SLOTS for the engines (issue 35, point 3); unknown to an engine without slots.
      slots: { type: 'string', default: '1' },
      // Commands slower than this go to Redis's slow log (µs).
      'slowlog-us': { type: 'string', default: '1000' },
      'records-timeout-seconds': { type: 'string', default: '600' },
      'no-records': { type: 'boolean', default: false },
      // Kafka producers of the votes, one request in flight each.
      producers: { type: 'string', default: '3' },
    },
  });
  const roundSeconds = wholeNumber(values['round-seconds'], '--round-seconds');
  if (roundSeconds < 5 || roundSeconds > 120) throw new Error('--round-seconds: 5 to 120');
  const spread = Number(values.spread);
  if (!(spread > 0 && spread <= 1)) throw new Error('--spread: a share, more than 0 and at most 1');
  return {
    players: wholeNumber(values.players, '--players'),
    roundSeconds,
    spread,
    slots: wholeNumber(values.slots, '--slots'),
    producers: wholeNumber(values.producers, '--producers'),
    slowlogMicros: wholeNumber(values['slowlog-us'], '--slowlog-us'),
    recordsTimeoutMs:
      wholeNumber(values['records-timeout-seconds'], '--records-timeout-seconds') * 1000,
    records: !values['no-records'],
  };
}
