import { z } from 'zod';

/**
 * The `/ws` client messages (product spec §7), checked at the edge. Unknown fields are ignored;
 * `playerId` is accepted and ignored: who votes comes from the session cookie on the upgrade.
 */
const id = z.string().trim().min(1).max(200);

const subscribeTournament = z.object({
  type: z.literal('subscribe_tournament'),
  tournamentId: id,
});

const gameAction = z.object({
  type: z.literal('game_action'),
  tournamentId: id,
  action: z.literal('image_select'),
  playerId: z.unknown().optional(),
  imageId: id,
  round: z.number().int().min(1).max(1000),
  timestamp: z.string().max(100).optional(),
});

export type ClientMessage = z.infer<typeof subscribeTournament> | z.infer<typeof gameAction>;

export type ParsedClientMessage =
  | { ok: true; message: ClientMessage }
  | { ok: false; code: 'BAD_MESSAGE' | 'UNKNOWN_TYPE'; message: string };

const schemas = { subscribe_tournament: subscribeTournament, game_action: gameAction } as const;

/** Parses one text frame; never throws. */
export function parseClientMessage(text: string): ParsedClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'BAD_MESSAGE', message: 'The message is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, code: 'BAD_MESSAGE', message: 'The message is not a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) {
    return {
      ok: false,
      code: 'UNKNOWN_TYPE',
      message: `Unknown message type ${JSON.stringify(type ?? null).slice(0, 60)}`,
    };
  }
  const parsed = schemas[type as keyof typeof schemas].safeParse(value);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.') || 'message');
    return {
      ok: false,
      code: 'BAD_MESSAGE',
      message: `Invalid ${type}: ${[...new Set(fields)].join(', ')}`,
    };
  }
  return { ok: true, message: parsed.data };
}
