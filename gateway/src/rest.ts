import { Router, type Request, type Response } from 'express';
import type { Accounts } from './accounts';
import { AuditReads } from './audit';
import { advertisementDeletedMessage, type Advertisements } from './ads';
import type { RequestOrigins } from './request-origins';
import type { GatewayClients } from './clients';
import {
  advertisementChangesInput,
  advertisementPositionQuery,
  changePasswordInput,
  loginInput,
  newAdvertisementInput,
  offlineChoicesInput,
  profileInput,
  registerInput,
  resendVerificationInput,
  tournamentInput,
  verifyEmailInput,
} from './inputs';
import type { FairPlayReads } from './fair-play';
import { disqualifyParticipant } from './disqualification';
import type { GameRecordsReads } from './records';
import { serverTime } from './time';
import { tournamentDeletedMessage, type Tournaments } from './tournaments';
import { parseBody } from './validation';

export interface RestOptions {
  clients: GatewayClients;
  accounts: Accounts;
  tournaments: Tournaments;
  advertisements: Advertisements;
  records: GameRecordsReads;
  fairPlay: FairPlayReads;
  origins: RequestOrigins;
  /** Serve `GET /api/dev/mailbox` (never in production). */
  devMailbox: boolean;
}

/**
 * The REST shims of the product spec §7 (documented in docs/api-rest.md): the documented
 * contract, answered by the same functions the GraphQL resolvers use. Handlers translate and
 * delegate; errors thrown here are rendered by the app's error handler as `{ message, code }`.
 */
export function createRestRouter({
  clients,
  accounts,
  tournaments,
  advertisements,
  records,
  fairPlay,
  origins,
  devMailbox,
}: RestOptions): Router {
  const router = Router();
  const origin = (req: Request, res: Response) => origins.fromHttp(req, res);

  router.get('/api/time', async (_req, res) => {
    res.json({ serverTime: await serverTime(clients) });
  });

  router.get('/api/user', async (req, res) => {
    res.json(await accounts.currentUser(origin(req, res)));
  });
  router.post('/api/register', async (req, res) => {
    res.json(await accounts.register(origin(req, res), parseBody(registerInput, req.body)));
  });
  router.post('/api/login', async (req, res) => {
    res.json(await accounts.login(origin(req, res), parseBody(loginInput, req.body)));
  });
  router.post('/api/logout', async (req, res) => {
    await accounts.logout(origin(req, res));
    res.json({ message: 'Logged out' });
  });
  router.put('/api/user/profile', async (req, res) => {
    res.json(await accounts.updateProfile(origin(req, res), parseBody(profileInput, req.body)));
  });
  router.put('/api/user/password', async (req, res) => {
    const input = parseBody(changePasswordInput, req.body);
    res.json({ message: await accounts.changePassword(origin(req, res), input) });
  });
  router.post('/api/verify-email', async (req, res) => {
    const input = parseBody(verifyEmailInput, req.body);
    res.json({ user: await accounts.verifyEmail(origin(req, res), input) });
  });
  router.post('/api/resend-verification', async (req, res) => {
    const input = parseBody(resendVerificationInput, req.body);
    res.json({ message: await accounts.resendVerification(origin(req, res), input) });
  });

  // Tournaments: reading is public, management is the admin's (201 on create).
  router.get('/api/tournaments', async (_req, res) => {
    res.json(await tournaments.list());
  });
  router.post('/api/tournaments', async (req, res) => {
    const input = parseBody(tournamentInput, req.body);
    res.status(201).json(await tournaments.create(origin(req, res), input));
  });
  router.get('/api/tournaments/:id', async (req, res) => {
    res.json(await tournaments.get(req.params.id));
  });
  router.put('/api/tournaments/:id', async (req, res) => {
    const input = parseBody(tournamentInput, req.body);
    res.json(await tournaments.update(origin(req, res), req.params.id, input));
  });
  router.delete('/api/tournaments/:id', async (req, res) => {
    await tournaments.delete(origin(req, res), req.params.id);
    res.json({ message: tournamentDeletedMessage });
  });

  // Offline pre-registration: the caller's own choices.
  router.get('/api/tournaments/:id/has-offline-choices', async (req, res) => {
    res.json({ hasChoices: await tournaments.hasOfflineChoices(origin(req, res), req.params.id) });
  });
  router.get('/api/tournaments/:id/offline-choices', async (req, res) => {
    res.json(await tournaments.offlineChoices(origin(req, res), req.params.id));
  });
  router.post('/api/tournaments/:id/offline-choices', async (req, res) => {
    const { choices } = parseBody(offlineChoicesInput, req.body);
    const saved = await tournaments.saveOfflineChoices(origin(req, res), req.params.id, choices);
    res.status(201).json(saved);
  });

  // Played games: statistics are public, history and details the admin's.
  router.get('/api/tournaments/:id/statistics', async (req, res) => {
    res.json(await records.statistics(origin(req, res), req.params.id));
  });
  router.get('/api/admin/tournaments/history', async (req, res) => {
    const caller = origin(req, res);
    res.json(await new AuditReads(clients).withPayments(caller, await records.history(caller)));
  });
  router.get('/api/admin/tournaments/:id/details', async (req, res) => {
    res.json(await records.details(origin(req, res), req.params.id));
  });
  // Fair play (issue 28): the tournament's fair-play report, admin only.
  router.get('/api/admin/tournaments/:id/fair-play', async (req, res) => {
    res.json(await fairPlay.report(origin(req, res), req.params.id));
  });
  // Fair play (issue 28): an admin disqualifies a participant, with the reason they are shown.
  router.post('/api/admin/tournaments/:id/participants/:userId/disqualify', async (req, res) => {
    const { id, userId } = req.params;
    res.json(
      await disqualifyParticipant(
        clients,
        origin(req, res),
        { tournamentId: id, userId },
        req.body,
      ),
    );
  });

  // The audit log of admin actions and prize payments (issue 28), admin only.
  router.get('/api/admin/audit', async (req, res) => {
    res.json(await new AuditReads(clients).list(origin(req, res), req.query));
  });
  router.post('/api/admin/tournaments/:id/prize-paid', async (req, res) => {
    res.json(await new AuditReads(clients).confirmPrizePaid(origin(req, res), req.params.id));
  });

  // Advertisements: the public list by position, and the admin's management.
  router.get('/api/advertisements', async (req, res) => {
    const { position } = parseBody(advertisementPositionQuery, req.query);
    res.json(await advertisements.listActive(origin(req, res), position));
  });
  router.get('/api/admin/advertisements', async (req, res) => {
    res.json(await advertisements.listAll(origin(req, res)));
  });
  router.post('/api/admin/advertisements', async (req, res) => {
    const input = parseBody(newAdvertisementInput, req.body);
    res.status(201).json(await advertisements.create(origin(req, res), input));
  });
  router.put('/api/admin/advertisements/:id', async (req, res) => {
    const input = parseBody(advertisementChangesInput, req.body);
    res.json(await advertisements.update(origin(req, res), req.params.id, input));
  });
  router.delete('/api/admin/advertisements/:id', async (req, res) => {
    await advertisements.delete(origin(req, res), req.params.id);
    res.json({ message: advertisementDeletedMessage });
  });

  if (devMailbox) {
    router.get('/api/dev/mailbox', async (_req, res) => {
      res.json(await accounts.mailbox());
    });
  }
  return router;
}
