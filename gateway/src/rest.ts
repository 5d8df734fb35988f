import { Router, type Request, type Response } from 'express';
import type { Accounts } from './accounts';
import type { Callers } from './callers';
import type { GatewayClients } from './clients';
import {
  changePasswordInput,
  loginInput,
  profileInput,
  registerInput,
  resendVerificationInput,
  verifyEmailInput,
} from './inputs';
import { serverTime } from './time';
import { parseBody } from './validation';

export interface RestOptions {
  clients: GatewayClients;
  accounts: Accounts;
  callers: Callers;
  /** Serve `GET /api/dev/mailbox` (never in production). */
  devMailbox: boolean;
}

/**
 * The REST shims of the product spec §7 (documented in docs/api-rest.md): the documented
 * contract, answered by the same functions the GraphQL resolvers use. Handlers translate and
 * delegate; errors thrown here are rendered by the app's error handler as `{ message, code }`.
 */
export function createRestRouter({ clients, accounts, callers, devMailbox }: RestOptions): Router {
  const router = Router();
  const caller = (req: Request, res: Response) => callers.fromHttp(req, res);

  router.get('/api/time', async (_req, res) => {
    res.json({ serverTime: await serverTime(clients) });
  });

  router.get('/api/user', async (req, res) => {
    res.json(await accounts.currentUser(caller(req, res)));
  });
  router.post('/api/register', async (req, res) => {
    res.json(await accounts.register(caller(req, res), parseBody(registerInput, req.body)));
  });
  router.post('/api/login', async (req, res) => {
    res.json(await accounts.login(caller(req, res), parseBody(loginInput, req.body)));
  });
  router.post('/api/logout', async (req, res) => {
    await accounts.logout(caller(req, res));
    res.json({ message: 'Logged out' });
  });
  router.put('/api/user/profile', async (req, res) => {
    res.json(await accounts.updateProfile(caller(req, res), parseBody(profileInput, req.body)));
  });
  router.put('/api/user/password', async (req, res) => {
    const input = parseBody(changePasswordInput, req.body);
    res.json({ message: await accounts.changePassword(caller(req, res), input) });
  });
  router.post('/api/verify-email', async (req, res) => {
    const input = parseBody(verifyEmailInput, req.body);
    res.json({ user: await accounts.verifyEmail(caller(req, res), input) });
  });
  router.post('/api/resend-verification', async (req, res) => {
    const input = parseBody(resendVerificationInput, req.body);
    res.json({ message: await accounts.resendVerification(caller(req, res), input) });
  });

  if (devMailbox) {
    router.get('/api/dev/mailbox', async (_req, res) => {
      res.json(await accounts.mailbox());
    });
  }
  return router;
}
