export { authService, defineAuthService, type AuthServiceOptions } from './service';
export { authConfig, type AuthConfig } from './config';
