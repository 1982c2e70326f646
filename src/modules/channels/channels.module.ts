import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { ConversationsModule, TurnsService } from '../conversations/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsOpsController, IntegrationsController } from './channels.controller.js';
import { ChannelsRepository } from './channels.repository.js';
import { ChannelsService } from './channels.service.js';
import { InboundProcessor } from './inbound.processor.js';
import { IngressController } from './ingress.controller.js';
import { IngressService } from './ingress.service.js';
import { IntegrationsService } from './integrations.service.js';
import { OutboundService } from './outbound.service.js';

@Module({
  imports: [OrgsModule, SpecialistsModule, ConversationsModule],
  controllers: [IngressController, IntegrationsController, ChannelsOpsController],
  providers: [
    ChannelsRepository,
    IntegrationsService,
    IngressService,
    InboundProcessor,
    OutboundService,
    ChannelsService,
    ChannelMetrics,
  ],
  exports: [IntegrationsService],
})
export class ChannelsModule implements OnModuleInit {
  constructor(
    private readonly queue: QueueService,
    private readonly scheduler: SchedulerService,
    private readonly processor: InboundProcessor,
    private readonly outbound: OutboundService,
    private readonly repo: ChannelsRepository,
    private readonly turns: TurnsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ChannelMetrics,
  ) {}

  onModuleInit(): void {
    this.turns.setOutboundPort(this.outbound);
    this.metrics.watchBreakers((channel) => this.outbound.breakerState(channel));
    // Each event and each send is claimed in the database first, so a batch runs in parallel safely.
    this.queue.handle('channels.inbound', ({ eventId }, job) => this.processor.process(eventId, job.final), { retryLimit: 3, retryDelaySeconds: 5, batchSize: 16, parallel: true, pollingIntervalSeconds: 0.5 });
    this.queue.handle('channels.outbound', ({ outboundId }) => this.outbound.dispatch(outboundId), { retryLimit: 0, batchSize: 16, parallel: true, pollingIntervalSeconds: 0.5 });
    // Events still queued STRANDED_AFTER_MS lost their job; those processing past INBOUND_LEASE_MS lost their worker.
    const { strandedAfterMs, inboundLeaseMs } = this.config.recovery;
    this.scheduler.every('channels.stranded-inbound', strandedAfterMs / 2, async () => {
      const now = Date.now();
      for (const event of await this.repo.strandedEvents(new Date(now - strandedAfterMs), new Date(now - inboundLeaseMs), 50)) {
        await this.processor.process(event.id);
      }
    });
    this.scheduler.every('channels.outbound-due', 10_000, async () => {
      await this.outbound.dispatchDue();
    });
  }
}
