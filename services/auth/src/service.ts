import { systemClock, type Clock } from '@underdog/kit';
import type { ServiceContext, ServiceDefinition, ServiceModule } from '@underdog/platform';
import { Accounts } from './accounts';
import { adminBootstrap } from './admin-bootstrap';
import { AuthEvents } from './adapters/events';
import { hashSecret, randomSecret } from './adapters/secrets';
import { SessionStore } from './adapters/sessions';
import { ResendThrottle } from './adapters/throttle';
import { UsersRepository } from './adapters/users';
import { authConfig, type AuthConfig } from './config';
import { verificationRules } from './domain/verification';
import { playerOutcomesConsumer } from './outcomes-consumer';
import { authRoutes } from './rpc';

/** What a caller may hand in instead of the defaults (tests). */
export interface AuthAdapters {
  /** The clock every rule is measured against (code expiry, resend interval, sessions). */
  clock?: Clock;
}

/** Users, credentials, sessions, e-mail verification and roles (see README). */
export async function createAuthModule(
  { infrastructure, logger }: ServiceContext,
  config: AuthConfig,
  adapters: AuthAdapters = {},
): Promise<ServiceModule> {
  const clock = adapters.clock ?? systemClock;
  const users = new UsersRepository(infrastructure.documents);
  const accounts = new Accounts({
    users,
    sessions: new SessionStore(infrastructure.store),
    resendThrottle: new ResendThrottle(infrastructure.store, verificationRules.resendIntervalMs),
    events: new AuthEvents(infrastructure.bus, clock),
    clock,
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
}

export const authService: ServiceDefinition<AuthConfig> = {
  name: 'auth',
  defaultPort: 8081,
  needs: ['documents', 'store', 'bus'],
  config: authConfig,
  create: (context, config) => createAuthModule(context, config),
};
