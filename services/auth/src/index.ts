export { authService } from './service';
