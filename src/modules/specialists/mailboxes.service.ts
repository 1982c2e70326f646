import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { OsaDto } from '../../contracts/assignments.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { specialistsConfig, type SpecialistsConfig } from './specialists.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import { QueueService } from '../../platform/queue/queue.service.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsRepository } from './assignments.repository.js';
import { toOsaDto } from './assignments.dto.js';
import { mailboxActionRefusal, type MailboxAction } from './mailbox.lifecycle.js';
import { MAILBOX_PROVIDER, type MailboxProvider } from './mailbox.provider.js';
import './mailboxes.events.js';

declare module '../../platform/queue/jobs.js' {
  interface JobMap {
    'mailbox.provision': { orgId: string; assignmentId: string; requestedBy: string | null };
  }
}

export const MAILBOX_RETRY_LIMIT = 3;

/**
 * The mailbox lifecycle of an OSA (spec 3.3): provisioning is an asynchronous job with retries;
 * suspend and restore act at once. The lifecycle is the three timestamps.
 */
@Injectable()
export class MailboxesService implements OnModuleInit {
  constructor(
    private readonly repo: AssignmentsRepository,
    private readonly orgs: OrgsService,
    private readonly events: EventBus,
    private readonly queue: QueueService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    @Inject(MAILBOX_PROVIDER) private readonly provider: MailboxProvider,
    @Inject(specialistsConfig.token) private readonly config: SpecialistsConfig,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.queue.handle('mailbox.provision', (data, job) => this.runProvisioning(data, job.final), {
      retryLimit: MAILBOX_RETRY_LIMIT,
      retryDelaySeconds: this.config.mailbox.retryDelayS,
      retryBackoff: true,
    });
  }

  /** "Provision now": honours the per-org disable, bypasses the environment gate. */
  async provision(actor: Principal | null, scope: OrgScope, assignmentId: string): Promise<OsaDto> {
    const { orgId } = scope;
    const osa = await this.dbService.transaction(async () => {
      const org = await this.orgs.lockForUpdate(orgId);
      const current = await this.require(scope, assignmentId);
      this.assertAllowed('provision', current);
      if (org.mailboxProvisioningDisabled) throw AppError.conflict('Mailbox provisioning is disabled for this org');
      const row = await this.repo.update(scope, assignmentId, { mailboxRequestedAt: this.clock.now() });
      this.dbService.afterCommit(() => this.queue.send('mailbox.provision', { orgId, assignmentId, requestedBy: actor?.userId ?? null }));
      return { ...row!, specialist: current.specialist };
    });
    if (actor) await this.auditAction(actor, 'provision_requested', orgId, assignmentId);
    return toOsaDto(osa);
  }

  /** The environment gate: when on, a new assignment queues its mailbox (unless the org disabled it). */
  async afterAssigned(scope: OrgScope, assignmentId: string): Promise<void> {
    if (!this.config.mailbox.autoProvision) return;
    const org = await this.orgs.findById(scope.orgId);
    if (org?.mailboxProvisioningDisabled) return;
    await this.provision(null, scope, assignmentId).catch((err) => logger.warn({ err, assignmentId }, 'automatic mailbox provisioning not queued'));
  }

  /** The unassigned OSA's mailbox is deleted at the provider (its row carries mailboxArchivedAt). */
  async archiveMailbox(scope: OrgScope, userId: string): Promise<void> {
    await this.provider.archive(scope, userId).catch((err) => logger.error({ err, userId }, 'mailbox archive at the provider failed'));
  }

  async suspend(actor: Principal, scope: OrgScope, assignmentId: string): Promise<OsaDto> {
    return this.act(actor, 'suspend', scope, assignmentId, async (current) => {
      await this.provider.suspend(scope, current.mailboxUserId!);
      return { mailboxSuspendedAt: this.clock.now() };
    });
  }

  async restore(actor: Principal, scope: OrgScope, assignmentId: string): Promise<OsaDto> {
    return this.act(actor, 'restore', scope, assignmentId, async (current) => {
      await this.provider.restore(scope, current.mailboxUserId!);
      await this.events.emitDurable('specialists.mailbox_restored', { orgId: scope.orgId, assignmentId });
      return { mailboxSuspendedAt: null };
    });
  }

  private async act(
    actor: Principal,
    action: Exclude<MailboxAction, 'provision'>,
    scope: OrgScope,
    assignmentId: string,
    apply: (current: Awaited<ReturnType<MailboxesService['require']>>) => Promise<{ mailboxSuspendedAt: Date | null }>,
  ): Promise<OsaDto> {
    const osa = await this.dbService.transaction(async () => {
      await this.orgs.lockForUpdate(scope.orgId);
      const current = await this.require(scope, assignmentId);
      this.assertAllowed(action, current);
      const row = await this.repo.update(scope, assignmentId, await apply(current));
      return { ...row!, specialist: current.specialist };
    });
    await this.auditAction(actor, action, scope.orgId, assignmentId);
    return toOsaDto(osa);
  }

  /** The job: creates the mailbox once; after its last failed attempt the assigned AM hears of it (spec 6.2). */
  private async runProvisioning(data: { orgId: string; assignmentId: string }, finalAttempt: boolean): Promise<void> {
    const scope = jobScope(data);
    const current = await this.repo.findActive(scope, data.assignmentId);
    if (!current || current.mailboxUserId || current.mailboxArchivedAt) return;
    try {
      const { userId } = await this.provider.createMailbox(scope, { address: current.emailAlias, displayName: current.specialist.name });
      await this.repo.update(scope, data.assignmentId, { mailboxUserId: userId, mailboxProvisionedAt: this.clock.now(), mailboxRequestedAt: null });
      await this.audit.record({ action: 'osa.mailbox_provisioned', resourceId: data.assignmentId, orgId: data.orgId, meta: { provider: this.provider.name } });
    } catch (err) {
      if (finalAttempt) await this.provisioningFailed(scope, data.assignmentId, current.emailAlias, err);
      throw err;
    }
  }

  private async provisioningFailed(scope: OrgScope, assignmentId: string, alias: string, err: unknown): Promise<void> {
    const { orgId } = scope;
    await this.repo.update(scope, assignmentId, { mailboxRequestedAt: null });
    const org = await this.orgs.findById(orgId);
    logger.error({ err, orgId, assignmentId }, 'mailbox provisioning failed after its retries');
    if (!org?.assignedAmId) return;
    // Owed: queued before it is delivered, so it survives a crash of this process.
    await this.events.emitDurable('notifications.owed', {
      userId: org.assignedAmId,
      notice: {
        type: 'workspace_provisioning_failed',
        title: 'Mailbox provisioning failed',
        message: `The mailbox ${alias} for ${org.legalName} could not be provisioned after ${MAILBOX_RETRY_LIMIT + 1} attempts.`,
        meta: { orgId, orgSlug: org.slug, assignmentId, email_alias: alias },
      },
    });
  }

  private async require(scope: OrgScope, assignmentId: string) {
    const row = await this.repo.findActive(scope, assignmentId);
    if (!row) throw AppError.notFound('Assignment');
    return row;
  }

  private assertAllowed(action: MailboxAction, current: Parameters<typeof mailboxActionRefusal>[1]): void {
    const refusal = mailboxActionRefusal(action, current);
    if (refusal) throw AppError.conflict(refusal);
  }

  private auditAction(actor: Principal, action: string, orgId: string, assignmentId: string): Promise<void> {
    return this.audit.record({ action: `osa.mailbox_${action}`, userId: actor.userId, resourceId: assignmentId, orgId, impersonatorId: actor.impersonatorId });
  }
}
