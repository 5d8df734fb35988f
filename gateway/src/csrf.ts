import { AppError } from '@underdog/kit';
import type { NextFunction, Request, Response } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CSRF_MESSAGE = 'Requests must be JSON and carry an X-Device-ID header';

/**
 * CSRF defence for the REST mutations: a cross-site form or `no-cors` fetch cannot send a
 * custom header without a CORS preflight, which the gateway never grants. So every
 * POST/PUT/PATCH/DELETE under /api must carry a non-empty `X-Device-ID`, and its body, if it has
 * one, must be `Content-Type: application/json`. A bodiless mutation (the spec's client sends no
 * content type without a body: logout, deletes) passes on the header alone; a form, multipart or
 * text/plain body never does. Anything else is 403 CSRF_REJECTED before it reaches a handler.
 */
export function requireCsrfSafeMutation(req: Request, _res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) {
    next();
    return;
  }
  const contentType = req.headers['content-type'];
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  const deviceId = req.get('x-device-id')?.trim();
  const bodyAllowed =
    mediaType === 'application/json' || (contentType === undefined && !hasBody(req));
  if (!bodyAllowed || !deviceId) {
    next(new AppError('FORBIDDEN', CSRF_MESSAGE, { reason: 'CSRF_REJECTED' }));
    return;
  }
  next();
}

/** Whether the request announces a body: a non-zero Content-Length or a chunked transfer. */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}
