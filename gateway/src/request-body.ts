import { AsyncResource } from 'node:async_hooks';
import type { Request, RequestHandler, Response } from 'express';

export interface BodyLimits {
  /** The largest body read, in bytes (wire bytes: a compressed body is refused, see below). */
  maxBodyBytes: number;
  /** How long the whole body may take to arrive once the handler starts reading it. */
  timeoutMs: number;
}

/**
 * Reads every request body once, before any route, with a byte cap and a stall timer, and
 * parses a JSON one into `req.body` (what `express.json()` did; Apollo and the REST routes read
 * it there). Other bodies are read within the same bounds and dropped: no route takes them.
 *
 * Refusals do not wait for the rest of the body, and close the connection so Node does not
 * read it either: a declared `Content-Length` over the cap is refused before a byte of the body
 * is read; a body that passes the cap while streaming (chunked) is refused at that chunk
 * (413 `PAYLOAD_TOO_LARGE`); a body still incomplete after `timeoutMs` gets 408
 * `REQUEST_TIMEOUT`. A compressed body (`Content-Encoding` other than identity) is 415
 * `UNSUPPORTED_MEDIA_TYPE`: no browser sends one, and inflating it would let a small body cost
 * the cap many times over. JSON must be UTF-8 (415 otherwise); bad JSON is 400 `BAD_REQUEST`.
 */
export function boundedBodies(limits: BodyLimits): RequestHandler {
  return (req, res, next) => {
    // Apollo asks whether a body parser ran ('body' in req), as express.json() leaves it.
    if (!Object.hasOwn(req, 'body')) req.body = undefined;
    if (!hasBody(req)) {
      next();
      return;
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity') {
      refuse(req, res, 415, 'Compressed request bodies are not accepted', 'UNSUPPORTED_MEDIA_TYPE');
      return;
    }
    const json = typeof req.is('application/json') === 'string';
    if (json && !isUtf8(req)) {
      refuse(req, res, 415, 'JSON must be UTF-8', 'UNSUPPORTED_MEDIA_TYPE');
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
      refuse(req, res, 413, 'Request body too large', 'PAYLOAD_TOO_LARGE');
      return;
    }
    // Bound: the rest of the request runs in its own async context (its request id), not the
    // socket's that emits 'end'.
    readBody(
      req,
      res,
      limits,
      AsyncResource.bind((body: Buffer) => {
        if (json) {
          const parsed = parseJson(body);
          if (parsed === invalid) {
            sendError(res, 400, 'Malformed request', 'BAD_REQUEST');
            return;
          }
          req.body = parsed;
        }
        next();
      }),
    );
  };
}

/** As `type-is`'s hasBody: chunked, or a Content-Length (0 included: JSON's `{}`). */
function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined
  );
}

function isUtf8(req: Request): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

const invalid = Symbol('invalid JSON');

/** `express.json()`'s strict mode: an object or an array; an empty body is `{}`. */
function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') return invalid;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return invalid;
  }
}

function readBody(
  req: Request,
  res: Response,
  limits: BodyLimits,
  done: (body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBodyBytes) {
      stop();
      refuse(req, res, 413, 'Request body too large', 'PAYLOAD_TOO_LARGE');
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    stop();
    done(Buffer.concat(chunks, received));
  };
  // The client went away mid-body: there is no one to answer.
  const onClose = () => stop();
  const timer = setTimeout(() => {
    stop();
    refuse(req, res, 408, 'Request body timed out', 'REQUEST_TIMEOUT');
  }, limits.timeoutMs);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
  // A stream error (the client reset) is followed by 'close'; it must not go unhandled.
  req.on('error', () => undefined);
}

/**
 * Answers and closes the connection without reading the rest of the body: `Connection: close`
 * makes Node end the socket once the answer is written instead of draining the request.
 */
function refuse(req: Request, res: Response, status: number, message: string, code: string): void {
  req.pause();
  res.setHeader('Connection', 'close');
  sendError(res, status, message, code);
}

/** The edge's error shape, `{ message, code, requestId }` (the kit's `finishHttpApp`). */
function sendError(res: Response, status: number, message: string, code: string): void {
  const requestId: unknown = res.locals.requestId;
  res
    .status(status)
    .json(typeof requestId === 'string' ? { message, code, requestId } : { message, code });
}
