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

/** The seconds a throttled request was told to wait (HTTP 429 `Retry-After`), if it was told. */
export function retryAfterSecondsOf(error: unknown): number | undefined {
  if (!(error instanceof ApolloError)) return undefined;
  const network = error.networkError as Partial<ServerError> | null;
  const header = network?.response?.headers?.get('retry-after');
  const seconds = header ? Number(header) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** Whether the server refused the operation as too many attempts (429, RATE_LIMITED). */
export function isRateLimited(error: unknown): boolean {
  if (errorCodeOf(error) === 'RATE_LIMITED') return true;
  if (!(error instanceof ApolloError)) return false;
  return (error.networkError as Partial<ServerError> | null)?.statusCode === 429;
}

/**
 * A failed login's text (spec §8, 'Invalid username or password', generic on purpose), except
 * when the server throttled the attempts (server rules): then when to try again, in whole
 * minutes rounded up — "Too many attempts. Try again in N minutes." — so a right password
 * is not read as a wrong one.
 */
export function loginFailureTextOf(error: unknown): string {
  if (!isRateLimited(error)) return i18n.t('auth.loginFailedText');
  const seconds = retryAfterSecondsOf(error) ?? 60;
  return i18n.t('auth.tooManyAttempts', { count: Math.max(1, Math.ceil(seconds / 60)) });
}
