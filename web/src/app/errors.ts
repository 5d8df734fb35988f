import { ApolloError, type ServerError } from '@apollo/client';
import { currentLanguage, i18n } from './i18n';

interface GraphQLErrorLike {
  message: string;
  extensions?: { code?: unknown };
}

/**
 * The first GraphQL error of a failed operation, whether it arrived as a GraphQL error (HTTP
 * 200) or inside a non-2xx response, which Apollo reports as a network error (the gateway
 * answers a failed login with HTTP 401 and the error in the body).
 */
export function graphQLErrorOf(error: unknown): GraphQLErrorLike | undefined {
  if (!(error instanceof ApolloError)) return undefined;
  if (error.graphQLErrors.length > 0) return error.graphQLErrors[0];
  const network = error.networkError as Partial<ServerError> | null;
  const result = network?.result;
  if (result && typeof result === 'object' && 'errors' in result) {
    const errors = (result as { errors?: GraphQLErrorLike[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) return errors[0];
  }
  return undefined;
}

/** The code a failed operation carries (e.g. INVALID_CREDENTIALS), if any. */
export function errorCodeOf(error: unknown): string | undefined {
  const code = graphQLErrorOf(error)?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether the operation never reached the server or got no readable answer. */
export function isNetworkFailure(error: unknown): boolean {
  return error instanceof ApolloError && graphQLErrorOf(error) === undefined;
}

/**
 * A failed operation's message in the user's language: in English the server's own text (the
 * spec's strings), else the fallback; in another language the catalog's message for the error's
 * stable code (`errors.<CODE>`), else the fallback (which the caller passes translated).
 */
export function messageOf(error: unknown, fallback: string): string {
  const graphQLError = graphQLErrorOf(error);
  if (currentLanguage() === 'en') return graphQLError?.message ?? fallback;
  const code = errorCodeOf(error);
  return code && i18n.exists(`errors.${code}`) ? i18n.t(`errors.${code}`) : fallback;
}
