import type { ServiceDefinition } from '@underdog/platform';
import { Accounts } from './accounts';
import { adminBootstrap } from './admin-bootstrap';
import { AuthEvents } from './adapters/events';
import { hashSecret, randomSecret } from './adapters/secrets';
import { SessionStore } from './adapters/sessions';
import { ResendThrottle } from './adapters/throttle';
import { UsersRepository } from './adapters/users';
import { authConfig, type AuthConfig } from './config';
import { verificationRules } from './domain/verification';
import { authRoutes } from './handlers';
import { playerOutcomesConsumer } from './outcomes-consumer';

export interface AuthServiceOptions {
  /** The clock every rule is measured against (code expiry, resend interval, sessions). */
  now?: () => Date;
}

/**
 * Users, credentials, sessions, e-mail verification and roles (see README). Tests pass their own
 * clock; everything else uses `authService`.
 */
export function defineAuthService(options: AuthServiceOptions = {}): ServiceDefinition<AuthConfig> {
  const now = options.now ?? (() => new Date());
  return {
    name: 'auth',
    defaultPort: 8081,
    needs: ['documents', 'store', 'bus'],
    config: authConfig,
    create: async ({ infrastructure, logger }, config) => {
      const users = new UsersRepository(infrastructure.documents);
      const accounts = new Accounts({
        users,
        sessions: new SessionStore(infrastructure.store),
        resendThrottle: new ResendThrottle(
          infrastructure.store,
          verificationRules.resendIntervalMs,
        ),
        events: new AuthEvents(infrastructure.bus, now),
        now,
        logger,
        dummyPasswordHash: await hashSecret(randomSecret()),
      });
      return {
        components: [
          playerOutcomesConsumer({ bus: infrastructure.bus, users, logger }),
          ...(config.admin ? [adminBootstrap(accounts, config.admin, logger)] : []),
        ],
        registerRpc: authRoutes(accounts, { benchmarkSeed: config.benchmarkSeed }),
      };
    },
  };
}

export const authService = defineAuthService();
