export { notificationService } from './service';
