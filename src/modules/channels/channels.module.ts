import { providePort } from '../../platform/ports/ports.js';
import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { systemNow } from '../../platform/clock/clock.js';
import { channelsConfig, type ChannelsConfig } from './channels.config.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { jobScope } from '../../platform/tenancy/org-scope.js';
import { SchedulerService } from '../../platform/queue/scheduler.service.js';
import { ConversationsModule, DELIVERY_PORT, OUTBOUND_PORT } from '../conversations/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { ChannelMetrics } from './channel-metrics.js';
import { ChannelsOpsController, IntegrationsController } from './channels.controller.js';
import { ChannelsRepository } from './channels.repository.js';
import { ChannelsService } from './channels.service.js';
import { HeldMailService } from './held-mail.service.js';
import { InboundProcessor } from './inbound.processor.js';
import { IngressController } from './ingress.controller.js';
import { IngressLoad } from './ingress-load.js';
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
    IngressLoad,
    InboundProcessor,
    OutboundService,
    // Channel conversations' replies leave through the outbox; staff see how far each got.
    providePort(OUTBOUND_PORT, OutboundService),
    HeldMailService,
    providePort(DELIVERY_PORT, HeldMailService),
    ChannelsService,
    ChannelMetrics,
    channelsConfig.provider,
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
    @Inject(channelsConfig.token) private readonly config: ChannelsConfig,
    private readonly heldMail: HeldMailService,
  ) {}

  onModuleInit(): void {
    // Each event and each send is claimed in the database first, so a batch runs in parallel safely.
    this.queue.handle('channels.inbound', ({ eventId }, job) => this.processor.process(eventId, job.final), {
      retryLimit: 3,
      retryDelaySeconds: 5,
      batchSize: 16,
      parallel: true,
      pollingIntervalSeconds: 0.5,
    });
    this.queue.handle('channels.outbound', (job) => this.outbound.dispatch(jobScope(job), job.outboundId), { retryLimit: 0, batchSize: 16, parallel: true, pollingIntervalSeconds: 0.5 });
    this.queue.handle('channels.outbound-released', async ({ orgId, assignmentId }) => void (await this.heldMail.release(orgId, assignmentId)), {
      retryLimit: 5,
      retryDelaySeconds: 10,
      pollingIntervalSeconds: 0.5,
    });
    // Events still queued STRANDED_AFTER_MS lost their job; those processing past INBOUND_LEASE_MS lost their worker.
    const { strandedAfterMs, inboundLeaseMs } = this.config.recovery;
    this.scheduler.every('channels.stranded-inbound', strandedAfterMs / 2, async () => {
      const now = systemNow().getTime();
      for (const event of await this.repo.unscopedStrandedEvents(new Date(now - strandedAfterMs), new Date(now - inboundLeaseMs), 50)) {
        await this.processor.process(event.id);
      }
    });
    this.scheduler.every('channels.outbound-due', 10_000, async () => {
      await this.outbound.dispatchDue();
    });
    this.scheduler.every('channels.held-released', 60_000, async () => {
      await this.heldMail.releaseStranded();
    });
  }
}
