/**
 * The small steps the game's scripts share: reading a number, HSETNX, and the applied-mark raise
 * (the Lua function `raiseMarkLua` and its memory twin `raiseMarkIn`).
 */
import type { SyncCommands } from '@underdog/store';

export function num(value: string | null): number {
  return Number(value ?? 0) || 0;
}

export function hSetNx(redis: SyncCommands, key: string, field: string, value: string): boolean {
  if (redis.hGet(key, field) !== null) return false;
  redis.hSet(key, { [field]: value });
  return true;
}

/**
 * Raises the applied mark of a `game.votes` partition to `value` when the message before it was
 * applied (the mark is at least `after`; '' skips that check), never lowers it: a Lua function
 * for the scripts that take a mark. Replies 1 if raised.
 */
export const raiseMarkLua = `
local function raiseMark(mark, value, after)
  local current = tonumber(redis.call('GET', mark) or '0') or 0
  if tonumber(value) > current and (after == '' or current >= tonumber(after)) then
    redis.call('SET', mark, value)
    return 1
  end
  return 0
end
`;

export function raiseMarkIn(
  redis: SyncCommands,
  mark: string,
  value: string,
  after: string,
): number {
  const current = num(redis.get(mark));
  if (Number(value) > current && (after === '' || current >= Number(after))) {
    redis.set(mark, value);
    return 1;
  }
  return 0;
}
