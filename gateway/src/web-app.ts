import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/** Paths that belong to the API and the operators, never to the web app's client routes. */
const RESERVED = /^\/(?:api|graphql|ws|healthz|readyz|metrics)(?:\/|$)/;

/** Whether `webRoot` holds a built web app (its index.html). */
export function isWebRoot(webRoot: string): boolean {
  return existsSync(join(webRoot, 'index.html'));
}

/**
 * Serves the built web app: its files (hashed assets cached for a year, index.html never), and
 * index.html for every other GET of an extensionless path that is not the API's (`/api`,
 * `/graphql`, `/ws`, health and metrics), so client routes such as `/game/t1` or `/profile`
 * load the app on a reload. Missing assets stay 404s.
 */
export function webAppRouter(webRoot: string): Router {
  const router = express.Router();
  const index = join(webRoot, 'index.html');
  router.use(
    express.static(webRoot, {
      index: false,
      setHeaders: (res, path) => {
        res.setHeader(
          'Cache-Control',
          path.includes(`${join(webRoot, 'assets')}`)
            ? 'public, max-age=31536000, immutable'
            : 'no-cache',
        );
      },
    }),
  );
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (RESERVED.test(req.path) || extname(req.path) !== '') return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (error) => {
      if (error) next(error);
    });
  });
  return router;
}
