import type { Schema } from 'mongoose';
import type { CollectionDefinition, Identified } from './port';

/**
 * The collections a store has declared, by name, each with what its adapter made of it. The
 * same definition declared again answers the same entry; a different schema or indexes under a
 * name already declared throws, rather than two modules writing one collection two ways.
 */
export class Declarations<E> {
  private readonly byName = new Map<string, { schema: Schema; indexes: string; entry: E }>();

  /** The entry of `definition`, made by `create` the first time its name is declared. */
  entryOf<T extends Identified>(definition: CollectionDefinition<T>, create: () => E): E {
    const indexes = JSON.stringify(definition.indexes ?? []);
    const declared = this.byName.get(definition.name);
    if (!declared) {
      const entry = create();
      this.byName.set(definition.name, { schema: definition.schema, indexes, entry });
      return entry;
    }
    if (declared.indexes !== indexes || declared.schema !== definition.schema) {
      throw new Error(`collection ${definition.name} is already declared differently`);
    }
    return declared.entry;
  }

  entries(): E[] {
    return [...this.byName.values()].map(({ entry }) => entry);
  }
}
