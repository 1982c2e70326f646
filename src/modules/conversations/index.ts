export { ConversationsModule } from './conversations.module.js';
export { ConversationsService } from './conversations.service.js';
export { MessageQuotaService } from './message-quota.service.js';
export { ConversationStatsService } from './conversation-stats.service.js';
export { TurnsService } from './turns.service.js';
export { ArtifactsService } from './artifacts.service.js';
export { channelMessageKey, type OutboundPort } from './outbound.port.js';
export type { ConversationRow, MessageRow } from './conversations.tables.js';
