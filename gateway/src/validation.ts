import { AppError } from '@underdog/kit';
import { z } from 'zod';

/** A string field whose problems read as "<field> is required" / "<field> must be a string". */
export const text = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

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
