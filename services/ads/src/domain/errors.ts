import { AppError } from '@underdog/kit';

/**
 * The failures only the ads service reports, with their stable reasons and the messages clients
 * show; `NO_SESSION`, `ADMIN_ONLY` and `VALIDATION_FAILED` are the kit's `commonErrors`.
 */
export const adsErrors = {
  notFound: () => new AppError('NOT_FOUND', 'Advertisement not found', { reason: 'AD_NOT_FOUND' }),
} as const;
