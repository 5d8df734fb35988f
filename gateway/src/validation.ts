import { AppError } from '@underdog/kit';
import { z } from 'zod';

/** A string field whose problems read as "<field> is required" / "<field> must be a string". */
export const text = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

/** An optional string field: null and absent both mean "not given". */
export const optionalText = () =>
  text()
    .nullish()
    .transform((value) => value ?? undefined);

const uint32Max = 2 ** 32 - 1;

/**
 * A count (seconds, a round number) as protobuf carries it: a whole number from 0.
 * Its domain range is the service's to check, with the product's message.
 */
export const wholeNumber = () =>
  z
    .number({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a number') })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must not be negative' })
    .max(uint32Max, { error: 'is too large' });

/** An optional count: null and absent both mean "not given". */
export const optionalWholeNumber = () =>
  wholeNumber()
    .nullish()
    .transform((value) => value ?? undefined);

/** An optional boolean field: null and absent both mean "not given". */
export const optionalFlag = () =>
  z
    .boolean({ error: 'must be true or false' })
    .nullish()
    .transform((value) => value ?? undefined);

/**
 * An instant as ISO 8601 with a time zone (`2030-01-01T12:00:00.000Z`, or with an offset). An
 * empty string, null or absence is "not given", so the service can say it is required.
 */
export const optionalInstant = () =>
  text()
    .nullish()
    .transform((value) => value || undefined)
    .pipe(
      z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone' })
        .transform((value) => new Date(value))
        .optional(),
    );

/** A JSON object body with the given fields; anything else is "Request body must be a JSON object". */
export const body = <S extends z.ZodRawShape>(shape: S) =>
  z.object(shape, { error: 'Request body must be a JSON object' });

/**
 * Checks a request body's shape at the edge: missing or ill-typed fields are a 400 BAD_REQUEST
 * naming each field. Domain rules (e-mail format, password strength) are the services' to check.
 */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.join('.');
    return field ? `${field} ${issue.message}` : issue.message;
  });
  throw new AppError('BAD_REQUEST', problems.join('; '));
}
