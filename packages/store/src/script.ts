import type { ScriptReply, StoreScript } from './port';

const SCRIPT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Checks a script's name once, where it is written, rather than on its first run. */
export function defineScript<R extends ScriptReply>(script: StoreScript<R>): StoreScript<R> {
  if (!SCRIPT_NAME.test(script.name)) {
    throw new Error(
      `script name ${JSON.stringify(script.name)} must be letters, digits and underscores`,
    );
  }
  return Object.freeze({ ...script });
}

/**
 * Remembers which Lua body each script name stands for, so two different scripts that share
 * a name fail loudly instead of one silently running in place of the other.
 */
export class ScriptNames {
  private readonly bodies = new Map<string, string>();

  /** True the first time a name is seen (the caller then registers the script). */
  claim(script: StoreScript<ScriptReply>): boolean {
    const known = this.bodies.get(script.name);
    if (known === undefined) {
      this.bodies.set(script.name, script.lua);
      return true;
    }
    if (known !== script.lua) {
      throw new Error(`two different scripts are named ${script.name}`);
    }
    return false;
  }
}
