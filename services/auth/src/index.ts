export { authService, createAuthModule, type AuthAdapters } from './service';
export { authConfig, type AuthConfig } from './config';
