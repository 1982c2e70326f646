export { NotificationsModule } from './notifications.module.js';
export { NotificationsService, type NotifyInput } from './notifications.service.js';
