import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { PublicOrigins } from './request-origins';

/**
 * helmet's security headers with a Content Security Policy the web app lives with (see
 * docs/security.md): scripts only from this origin; inline styles for antd's CSS-in-JS; images
 * from here, `data:` and any https (ads are image URLs); video from here and https (video ads);
 * html ads in sandboxed `srcdoc` iframes (they inherit this policy: no script runs in them);
 * fetches and WebSockets to this origin and the configured public origins (`PUBLIC_ORIGINS`,
 * spelled out as `ws:`/`wss:` for browsers before CSP Level 3), never to a host named by the
 * request's Host header; no plugins, no framing by other sites.
 *
 * Behind HTTPS (`secure`) browsers are also told to upgrade any http sub-request. Outside
 * production the GraphQL landing page (Apollo's embedded explorer, from Apollo's CDN) is served
 * without the CSP; every other header stays.
 */
export function securityHeaders(options: {
  secure: boolean;
  graphqlLandingPage: boolean;
  publicOrigins: PublicOrigins;
}) {
  const directives = {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'https:'],
    mediaSrc: ["'self'", 'https:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", ...options.publicOrigins.webSocketSources()],
    frameSrc: ["'self'"],
    objectSrc: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
    upgradeInsecureRequests: options.secure ? [] : null,
  };
  const withCsp = helmet({ contentSecurityPolicy: { useDefaults: false, directives } });
  const withoutCsp = helmet({ contentSecurityPolicy: false });
  const handler: RequestHandler = (req, res, next) => {
    const landingPage =
      req.method === 'GET' && req.path === '/graphql' && /text\/html/.test(req.get('accept') ?? '');
    if (options.graphqlLandingPage && landingPage) withoutCsp(req, res, next);
    else withCsp(req, res, next);
  };
  return handler;
}
