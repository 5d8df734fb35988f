// The docs' tables printed from their sources, between marker comments in the hand-written docs:
//   <!-- generated: NAME (tools/docs/generate.ts) -->  …  <!-- /generated -->
//   tsx tools/docs/generate.ts          rewrites them
//   tsx tools/docs/generate.ts --check  fails (exit 1) when one is stale (tools/test/generated-docs.test.ts)
// - docs/api-ws.md `ws-messages`: the `/ws` server messages, from gateway/src/realtime/messages.ts
//   and the game events' one description each (gateway/src/realtime/game-events.ts);
// - docs/api-ws.md `graphql-game-events`: the GraphQL types implementing `GameEvent`, from the same;
// - docs/events.md `game-events`: the cases of `GameEvent`, from the comments of
//   proto/underdog/events/v1/game_events.proto.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { gameEventDescriptions, sampleViews } from '../../gateway/src/realtime/game-event-derived';
import type { GameEventView } from '../../gateway/src/realtime/game-events';
import { otherServerMessages, serverMessageTypes } from '../../gateway/src/realtime/messages';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const apiWsDoc = join(root, 'docs', 'api-ws.md');
export const eventsDoc = join(root, 'docs', 'events.md');
const gameEventsProto = join(root, 'proto', 'underdog', 'events', 'v1', 'game_events.proto');

const code = (name: string) => `\`${name}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const table = (head: string[], rows: string[][]) =>
  [head, head.map(() => '---'), ...rows]
    .map((row) => `| ${row.map(cell).join(' | ')} |`)
    .join('\n');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A message's fields as the table lists them, from the message built from a sample view (every
 * field set) and from an empty one (nullable fields null): an object built by the message is
 * shown with its fields, and "or null" when it may be null.
 */
function messageFields(full: Record<string, unknown>, empty: Record<string, unknown>): string {
  return Object.keys(full)
    .filter((name) => name !== 'type')
    .map((name) => {
      const value = full[name];
      if (!isObject(value)) return code(name);
      const inner = Object.keys(value);
      const shape = inner.length > 0 ? ` {${inner.map(code).join(', ')}}` : '';
      return code(name) + shape + (empty[name] === null ? ' or null' : '');
    })
    .join(', ');
}

/** docs/api-ws.md: the `/ws` server messages, in the order of `serverMessageTypes`. */
export function wsMessagesTable(): string {
  const rows = new Map<string, string[]>();
  for (const [type, row] of Object.entries(otherServerMessages)) {
    rows.set(type, [code(type), row.when, row.fields]);
  }
  const [full, empty] = [sampleViews('sample'), sampleViews('empty')];
  gameEventDescriptions.forEach((description, index) => {
    for (const message of description.ws) {
      const build = (view: GameEventView) =>
        message.build(view as never) as Record<string, unknown>;
      const fields = messageFields(build(full[index]!), build(empty[index]!));
      rows.set(message.type, [code(message.type), message.when, fields]);
    }
  });
  return table(
    ['type', 'when', 'fields'],
    serverMessageTypes.map((type) => rows.get(type)!),
  );
}

/** docs/api-ws.md: the GraphQL types implementing `GameEvent` (but `GameSnapshot`). */
export function graphqlGameEventsTable(): string {
  return table(
    ['type', 'fields (besides `tournamentId`, `gameId`, `occurredAt`)', 'on `/ws`'],
    gameEventDescriptions.map((description) => [
      code(description.name),
      Object.entries(description.fields)
        .filter(([, field]) => field.graphql !== undefined)
        .map(([name, field]) => code(`${name}: ${field.graphql}`))
        .join(', '),
      description.ws.map((message) => code(message.type)).join(', '),
    ]),
  );
}

/** The leading `//` comment of `message <name>` in a proto file, as one paragraph. */
function leadingComment(proto: string, name: string): string {
  const lines = proto.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`message ${name} {`));
  if (at < 0) throw new Error(`${relative(root, gameEventsProto)}: no message ${name}`);
  const comment: string[] = [];
  for (let i = at - 1; i >= 0 && lines[i]!.startsWith('//'); i--) {
    comment.unshift(lines[i]!.replace(/^\/\/ ?/, ''));
  }
  return comment.join(' ');
}

/** docs/events.md: each case of `GameEvent`'s `kind`, with its message's comment. */
export function protoGameEventsTable(): string {
  const proto = readFileSync(gameEventsProto, 'utf8');
  const oneof = /message GameEvent \{[\s\S]*?oneof kind \{([\s\S]*?)\}/.exec(proto);
  if (!oneof) throw new Error(`${relative(root, gameEventsProto)}: no GameEvent.kind`);
  const cases = [...oneof[1]!.matchAll(/^\s*(\w+) (\w+) = (\d+);/gm)].map(
    ([, message, field, number]) => ({ message: message!, field: field!, number: number! }),
  );
  return table(
    ['case', 'field', 'event type (`event-type` header)', 'what'],
    cases.map(({ message, field, number }) => [
      code(message),
      `${code(field)} = ${number}`,
      code(`underdog.events.v1.${message}`),
      leadingComment(proto, message),
    ]),
  );
}

const generators: Record<string, { file: string; print: () => string }> = {
  'ws-messages': { file: apiWsDoc, print: wsMessagesTable },
  'graphql-game-events': { file: apiWsDoc, print: graphqlGameEventsTable },
  'game-events': { file: eventsDoc, print: protoGameEventsTable },
};

/** A doc with each of its generated parts printed again (and the whole formatted by prettier). */
async function regenerate(file: string, text: string): Promise<string> {
  const replaced = text.replace(
    /(<!-- generated: ([\w-]+) [^>]*-->\n)[\s\S]*?(<!-- \/generated -->)/g,
    (_all, open: string, name: string, close: string) => {
      const generator = generators[name];
      if (!generator || generator.file !== file) {
        throw new Error(`${relative(root, file)}: unknown generated part "${name}"`);
      }
      return `${open}\n${generator.print()}\n\n${close}`;
    },
  );
  const config = await resolveConfig(file);
  return format(replaced, { ...config, filepath: file });
}

/** Each doc with generated parts: its current text and what it should be. */
export async function generatedDocs(): Promise<{ file: string; current: string; next: string }[]> {
  const files = [...new Set(Object.values(generators).map((generator) => generator.file))];
  return Promise.all(
    files.map(async (file) => {
      const current = readFileSync(file, 'utf8');
      const missing = Object.entries(generators).filter(
        ([name, generator]) =>
          generator.file === file && !current.includes(`<!-- generated: ${name} `),
      );
      if (missing.length > 0) {
        throw new Error(`${relative(root, file)}: no marker for ${missing.map(([n]) => n)}`);
      }
      return { file, current, next: await regenerate(file, current) };
    }),
  );
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const { file, current, next } of await generatedDocs()) {
    if (current === next) continue;
    if (check) stale.push(relative(root, file));
    else writeFileSync(file, next);
  }
  if (stale.length > 0) {
    process.stderr.write(
      `docs: stale generated tables in ${stale.join(', ')} (run \`tsx tools/docs/generate.ts\`)\n`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    process.stderr.write(`docs: ${String(error)}\n`);
    process.exit(1);
  });
}
