import { AppError } from '@underdog/kit';
import type { NextFunction, Request, Response } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CSRF_MESSAGE = 'Requests must be JSON and carry an X-Device-ID header';

/**
 * CSRF defence for the REST mutations: a cross-site form or `no-cors` fetch can send neither a
 * JSON content type nor a custom header without a CORS preflight, which the gateway never
 * grants. So every POST/PUT/PATCH/DELETE under /api must have `Content-Type: application/json`
 * and a non-empty `X-Device-ID`; anything else is 403 CSRF_REJECTED before it reaches a handler.
 */
export function requireCsrfSafeMutation(req: Request, _res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) {
    next();
    return;
  }
  const mediaType = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  const deviceId = req.get('x-device-id')?.trim();
  if (mediaType !== 'application/json' || !deviceId) {
    next(new AppError('FORBIDDEN', CSRF_MESSAGE, { reason: 'CSRF_REJECTED' }));
    return;
  }
  next();
}
