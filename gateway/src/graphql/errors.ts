import { HeaderMap } from '@apollo/server';
import { currentRequestId, isAppError, type AppError } from '@underdog/kit';
import { appErrorFromRpc } from '@underdog/rpc';
import { GraphQLError } from 'graphql';
import type { GraphQLContext, Resolvers } from './context';

/**
 * An error thrown by a resolver as clients see it: the AppError's message, `extensions.code` its
 * public code (e.g. INVALID_CREDENTIALS, RATE_LIMITED) and the HTTP status REST would answer
 * (with `Retry-After` on a 429 over HTTP, like REST), and `extensions.requestId` the request's
 * id when there is one (every HTTP request has; REST error bodies carry it too).
 * Anything unexpected is logged and becomes INTERNAL without its text.
 */
export function toGraphQLError(
  error: unknown,
  context: Pick<GraphQLContext, 'logger'>,
): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const appError = isAppError(error) ? error : appErrorFromRpc(error);
  if (appError.code === 'INTERNAL') {
    context.logger.error({ err: error }, 'unhandled GraphQL resolver error');
  }
  const requestId = currentRequestId();
  return new GraphQLError(appError.message, {
    originalError: appError,
    extensions: {
      code: appError.publicCode,
      ...(requestId === undefined ? {} : { requestId }),
      http: httpOf(appError),
    },
  });
}

function httpOf(appError: AppError): { status: number; headers?: HeaderMap } {
  if (appError.retryAfterSeconds === undefined) return { status: appError.status };
  const seconds = Math.max(1, Math.ceil(appError.retryAfterSeconds));
  return { status: appError.status, headers: new HeaderMap([['retry-after', String(seconds)]]) };
}

/** Wraps every field resolver of a module so its failures go through `toGraphQLError`. */
export function withAppErrors(resolvers: Resolvers): Resolvers {
  return Object.fromEntries(
    Object.entries(resolvers).map(([type, fields]) => [
      type,
      Object.fromEntries(
        Object.entries(fields).map(([field, resolve]) => [
          field,
          async (parent: unknown, args: never, context: GraphQLContext) => {
            try {
              return await resolve(parent, args, context);
            } catch (error) {
              throw toGraphQLError(error, context);
            }
          },
        ]),
      ),
    ]),
  );
}
