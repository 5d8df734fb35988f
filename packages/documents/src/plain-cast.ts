import type { SchemaType } from 'mongoose';
import type { StoredDocument, StoredModel } from './stored';

/**
 * `castDocument` without a mongoose Document where the answer is certain: a flat schema (only
 * String, Number, Boolean and Date fields, without defaults, setters, getters or validate
 * hooks) and a document whose every value already has its field's exact type and passes its
 * field's validators. Mongoose would store such a document as it is (Dates copied), in the
 * schema's field order; building that directly costs a fraction of constructing, validating
 * and serialising a Document (~30 µs), which the records of a 10,000-player round pay tens of
 * thousands of times. Anything else — a value to convert, a missing required field, a failing
 * validator, an undeclared field, null — answers undefined and goes to mongoose, so every
 * refusal (and its error) is still mongoose's own.
 */
export function plainCast(
  model: StoredModel,
  document: StoredDocument,
): StoredDocument | undefined {
  let plan = plans.get(model);
  if (plan === undefined) {
    plan = planOf(model);
    plans.set(model, plan);
  }
  if (!plan) return undefined;
  let present = 0;
  const cast: Record<string, unknown> = {};
  for (const field of plan.fields) {
    const value: unknown = document[field.path];
    if (value === undefined) {
      if (field.required) return undefined;
      continue;
    }
    present += 1;
    if (!field.accepts(value)) return undefined;
    cast[field.path] = value instanceof Date ? new Date(value.getTime()) : value;
  }
  // Every key of the document is a field of the schema: none undeclared, none undefined.
  if (Object.keys(document).length !== present) return undefined;
  return cast as StoredDocument;
}

interface PlainField {
  path: string;
  required: boolean;
  /** The value has the field's type exactly and every validator passes it. */
  accepts: (value: unknown) => boolean;
}

/** Per model: its plan, or null when its schema is not one `plainCast` can decide. */
const plans = new WeakMap<StoredModel, { fields: PlainField[] } | null>();

const exactTypes: Record<string, (value: unknown) => boolean> = {
  String: (value) => typeof value === 'string',
  Number: (value) => typeof value === 'number' && Number.isFinite(value),
  Boolean: (value) => typeof value === 'boolean',
  Date: (value) => value instanceof Date && !Number.isNaN(value.getTime()),
};

/** The options a plain field may carry: each is a validator mongoose runs, none changes values. */
const plainOptions = new Set([
  'type',
  'required',
  'enum',
  'min',
  'max',
  'minlength',
  'maxlength',
  'validate',
]);

interface Validator {
  validator?: unknown;
  propsParameter?: boolean;
  isAsync?: boolean;
}

function planOf(model: StoredModel): { fields: PlainField[] } | null {
  const schema = model.schema;
  if (schema.childSchemas.length > 0 || hasValidateHooks(schema)) return null;
  const fields: PlainField[] = [];
  for (const [path, type] of Object.entries(schema.paths)) {
    const field = plainField(path, type);
    if (!field) return null;
    fields.push(field);
  }
  return { fields };
}

function plainField(path: string, type: SchemaType): PlainField | undefined {
  const exactType = exactTypes[type.instance];
  const options = type.options as Record<string, unknown>;
  const typed = type as SchemaType & {
    setters: unknown[];
    getters: unknown[];
    defaultValue?: unknown;
    validators: Validator[];
    requiredValidator?: unknown;
    checkRequired: (value: unknown) => unknown;
  };
  if (
    !exactType ||
    path.includes('.') ||
    Object.keys(options).some((option) => !plainOptions.has(option)) ||
    (options.required !== undefined && typeof options.required !== 'boolean') ||
    typed.setters.length > 0 ||
    typed.getters.length > 0 ||
    typed.defaultValue !== undefined
  ) {
    return undefined;
  }
  const required = options.required === true;
  const checks: Array<(value: unknown) => unknown> = [];
  for (const validator of typed.validators) {
    if (validator.validator === typed.requiredValidator) continue;
    if (
      typeof validator.validator !== 'function' ||
      validator.propsParameter ||
      validator.isAsync
    ) {
      return undefined;
    }
    const check = validator.validator as (value: unknown) => unknown;
    // Called without a document (`this` undefined): one that needs it throws, and mongoose decides.
    checks.push((value) => check.call(undefined, value));
  }
  return {
    path,
    required,
    accepts: (value) => {
      if (!exactType(value)) return false;
      if (required && !typed.checkRequired(value)) return false;
      try {
        // Passing as mongoose counts it: undefined or truthy; a promise is left to mongoose.
        return checks.every((check) => {
          const ok = check(value);
          return !isThenable(ok) && (ok === undefined || Boolean(ok));
        });
      } catch {
        return false;
      }
    },
  };
}

function isThenable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Pre or post `validate` hooks would run in mongoose's validation: none may be skipped. */
function hasValidateHooks(schema: StoredModel['schema']): boolean {
  const hooks = (schema as unknown as { s?: { hooks?: { _pres?: unknown; _posts?: unknown } } }).s
    ?.hooks;
  const pres = hooks?._pres;
  const posts = hooks?._posts;
  if (!(pres instanceof Map) || !(posts instanceof Map)) return true;
  const count = (hooksOf: Map<unknown, unknown>): number =>
    (hooksOf.get('validate') as unknown[] | undefined)?.length ?? 0;
  return count(pres) > 0 || count(posts) > 0;
}
