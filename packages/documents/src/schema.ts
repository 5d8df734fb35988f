import mongoose, { Schema } from 'mongoose';
import { plainCast } from './plain-cast';
import { DocumentValidationError, type CollectionDefinition, type Identified } from './port';
import type { StoredDocument, StoredModel } from './stored';

export type { StoredDocument, StoredModel } from './stored';

/**
 * The collection's schema as both adapters use it: `_id` a string, a field it does not declare
 * refused rather than dropped, and nothing of mongoose's own added (no version key, no id
 * virtual, empty objects kept). Indexes are declared here and built by `init()`.
 */
export function storedSchema<T extends Identified>(definition: CollectionDefinition<T>): Schema {
  const schema = definition.schema.clone();
  schema.add({ _id: { type: String, required: true } });
  schema.set('strict', 'throw');
  schema.set('strictQuery', false);
  schema.set('versionKey', false);
  schema.set('minimize', false);
  schema.set('id', false);
  schema.set('autoIndex', false);
  for (const index of definition.indexes ?? []) {
    const fields = Object.fromEntries(
      Object.entries(index.fields).map(([field, direction]) => [
        field === 'id' ? '_id' : field,
        direction,
      ]),
    );
    schema.index(fields, { unique: index.unique ?? false });
  }
  return schema;
}

/**
 * Models that only validate, for the memory adapter: mongoose checks a document without any
 * connection. One mongoose instance per store keeps stores from sharing model names.
 */
export function validationModels(): <T extends Identified>(
  definition: CollectionDefinition<T>,
) => StoredModel {
  const validation = new mongoose.Mongoose();
  return (definition) =>
    validation.model<StoredDocument>(definition.name, storedSchema(definition), definition.name);
}

/**
 * The document as the schema makes it — values cast, defaults filled in (an absent array is
 * empty) — which is what both adapters store; rejects with `DocumentValidationError` when it
 * does not fit. A flat document that already fits exactly is answered without a mongoose
 * Document (`plainCast`); every other one, and every refusal, is mongoose's.
 */
export async function castDocument(
  model: StoredModel,
  collection: string,
  document: StoredDocument,
): Promise<StoredDocument> {
  const plain = plainCast(model, document);
  if (plain) return plain;
  try {
    const cast = new model(document);
    await cast.validate();
    return cast.toObject<StoredDocument>();
  } catch (error) {
    throw asValidationError(collection, error) ?? error;
  }
}

/** mongoose's refusals (invalid value, undeclared field, uncastable value) in our terms. */
export function asValidationError(
  collection: string,
  error: unknown,
): DocumentValidationError | undefined {
  if (error instanceof mongoose.Error.ValidationError) {
    return new DocumentValidationError(collection, Object.keys(error.errors), { cause: error });
  }
  if (
    error instanceof mongoose.Error.StrictModeError ||
    error instanceof mongoose.Error.CastError
  ) {
    return new DocumentValidationError(collection, [error.path], { cause: error });
  }
  return undefined;
}

/**
 * A length bound counted in characters (code points) as the domain counts them, where
 * mongoose's `maxlength` counts UTF-16 units (an emoji twice): `validate: maxCodePoints(200)`.
 */
export function maxCodePoints(max: number): {
  validator: (value: unknown) => boolean;
  message: string;
} {
  return {
    validator: (value) => typeof value !== 'string' || Array.from(value).length <= max,
    message: `{PATH} is longer than ${max} characters`,
  };
}

/** A required field of the given type, as schemas declare most: `userId: required(String)`. */
export const required = <T>(type: T) => ({ type, required: true }) as const;
