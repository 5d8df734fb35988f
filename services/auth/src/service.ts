import type { ServiceDefinition } from '@underdog/platform';
import { authConfig, type AuthConfig } from './config';

/** Users, sessions, e-mail verification and roles (see README). Skeleton: owns its collection. */
export const authService: ServiceDefinition<AuthConfig> = {
  name: 'auth',
  defaultPort: 8081,
  needs: ['documents'],
  config: authConfig,
  create: ({ infrastructure }) => {
    infrastructure.documents.collection({
      name: 'users',
      indexes: [
        { fields: { email: 1 }, unique: true },
        { fields: { username: 1 }, unique: true },
      ],
    });
    return { components: [] };
  },
};
