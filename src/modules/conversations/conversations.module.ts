import { Module, type OnModuleInit } from '@nestjs/common';
import { RealtimeService } from '../../platform/realtime/realtime.service.js';
import { AgentModule } from '../agent/index.js';
import { ExpertsModule } from '../experts/index.js';
import { NotificationsModule } from '../notifications/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { ConversationAccess } from './conversation-access.service.js';
import { ConversationStatsRepository } from './conversation-stats.repository.js';
import { ConversationStatsService } from './conversation-stats.service.js';
import { ConversationsController } from './conversations.controller.js';
import { ConversationEvents } from './conversations.events.js';
import { ConversationsRepository } from './conversations.repository.js';
import { ConversationsService } from './conversations.service.js';
import { ExpertQueueController, QuotaController } from './expert-queue.controller.js';
import { ExpertQueueService } from './expert-queue.service.js';
import { MessageQuotaService } from './message-quota.service.js';
import { TurnsService } from './turns.service.js';

@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule, ExpertsModule, NotificationsModule, AgentModule],
  controllers: [ConversationsController, ExpertQueueController, QuotaController],
  providers: [ConversationsRepository, ConversationStatsRepository, ConversationStatsService, ConversationAccess, ConversationEvents, ExpertQueueService, MessageQuotaService, TurnsService, ConversationsService],
  exports: [ConversationsService, MessageQuotaService, TurnsService, ConversationStatsService],
})
export class ConversationsModule implements OnModuleInit {
  constructor(
    private readonly realtime: RealtimeService,
    private readonly access: ConversationAccess,
  ) {}

  onModuleInit(): void {
    // join_conversation: the same reach as REST (cross-org refused; client roles their own org only).
    this.realtime.setConversationAccess((principal, conversationId) => this.access.followableOrg(principal, conversationId));
  }
}
