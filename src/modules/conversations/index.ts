export { ConversationsModule } from './conversations.module.js';
export { ConversationsService } from './conversations.service.js';
export { MessageQuotaService } from './message-quota.service.js';
