import { Module } from '@nestjs/common';
import { ClientBriefsModule } from '../client-briefs/index.js';
import { OrgsModule } from '../orgs/index.js';
import { agentConfig } from './agent.config.js';
import { AgentService } from './agent.service.js';
import { LlmRunsRepository } from './llm-runs.repository.js';
import { ToolPermissionsRepository } from './tool-permissions.repository.js';
import { AgentToolsController, ToolPermissionsController } from './tools.controller.js';
import { AgentToolsService } from './tools.service.js';

@Module({
  imports: [OrgsModule, ClientBriefsModule],
  controllers: [AgentToolsController, ToolPermissionsController],
  providers: [AgentService, AgentToolsService, LlmRunsRepository, ToolPermissionsRepository, agentConfig.provider],
  exports: [AgentService],
})
export class AgentModule {}
