export { createNotificationModule, notificationService } from './service';
export type { NotificationAdapters } from './service';
export { notificationConfig, type NotificationConfig } from './config';
