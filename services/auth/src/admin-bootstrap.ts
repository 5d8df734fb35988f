import type { Component, Logger } from '@underdog/kit';
import type { AdminAccount } from './account-types';
import type { Accounts } from './accounts';

/**
 * Creates (or promotes) the configured first admin when the process starts, after the
 * infrastructure components, so the database is reachable and its indexes exist. A failure stops
 * the start: a deployment that asked for an admin and got none should not look healthy.
 */
export function adminBootstrap(accounts: Accounts, admin: AdminAccount, logger: Logger): Component {
  return {
    name: 'admin-bootstrap',
    start: async () => {
      await accounts.ensureAdmin(admin);
      logger.info('first admin ensured');
    },
  };
}
