import { providePort } from '../../platform/ports/ports.js';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { CONVERSATION_ACCESS } from '../../platform/realtime/realtime.service.js';
import { AgentModule } from '../agent/index.js';
import { ExpertsModule } from '../experts/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { conversationsConfig } from './conversations.config.js';
import { ArtifactLinks } from './artifact-links.js';
import { ArtifactsController } from './artifacts.controller.js';
import { ArtifactsRepository } from './artifacts.repository.js';
import { ArtifactsService } from './artifacts.service.js';
import { ARTIFACT_STORAGE, DirectoryArtifactStorage } from './artifacts.storage.js';
import { ConversationAccess } from './conversation-access.service.js';
import { ConversationStatsRepository } from './conversation-stats.repository.js';
import { ConversationStatsService } from './conversation-stats.service.js';
import { ConversationsController } from './conversations.controller.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository } from './conversations.repository.js';
import { ExpertQueueRepository } from './expert-queue.repository.js';
import { ConversationsService } from './conversations.service.js';
import { ExpertQueueController, QuotaController } from './expert-queue.controller.js';
import { ExpertQueueService } from './expert-queue.service.js';
import { MessageDeliveries } from './message-deliveries.js';
import { MessageQuotaService } from './message-quota.service.js';
import { SpecialistReplyNotifier } from './specialist-reply-notifier.js';
import { TurnsService } from './turns.service.js';

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule, ExpertsModule, AgentModule],
  controllers: [ConversationsController, ExpertQueueController, QuotaController, ArtifactsController],
  providers: [
    ConversationsRepository,
    ExpertQueueRepository,
    ConversationStatsRepository,
    ConversationStatsService,
    ConversationAccess,
    // join_conversation: the same reach as REST (cross-org refused; client roles their own org only).
    providePort(CONVERSATION_ACCESS, ConversationAccess),
    ConversationEvents,
    MessageDeliveries,
    ExpertQueueService,
    MessageQuotaService,
    TurnsService,
    SpecialistReplyNotifier,
    ConversationsService,
    ArtifactsRepository,
    ArtifactLinks,
    ArtifactsService,
    conversationsConfig.provider,
    { provide: ARTIFACT_STORAGE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new DirectoryArtifactStorage(join(config.dataDir, 'artifacts')) },
  ],
  exports: [ConversationsService, MessageQuotaService, TurnsService, ConversationStatsService, ArtifactsService, MessageDeliveries],
})
export class ConversationsModule {}
