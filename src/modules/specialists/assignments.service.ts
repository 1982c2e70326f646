import { Inject, Injectable } from '@nestjs/common';
import type { AssignSpecialistInput, OsaDto, UpdateAssignmentInput } from '../../contracts/assignments.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { firstNameOf } from '../../contracts/orgs.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService, orgsConfig, type OrgsConfig } from '../orgs/index.js';
import { AssignmentsRepository, type OsaWithSpecialist } from './assignments.repository.js';
import { SpecialistsRepository } from './specialists.repository.js';
import { generateWorkspaceAlias } from './workspace-alias.js';
import { toOsaDto } from './assignments.dto.js';
import { MailboxesService } from './mailboxes.service.js';

export interface AssignmentBillingSource {
  id: string;
  orgId: string;
  specialistId: string;
  specialistName: string;
  createdAt: Date;
  unassignedAt: Date | null;
  rateVersions: Array<{ at: Date; monthlyRate: number | null; rateEffectiveFrom: string | null; rateEffectiveUntil: string | null }>;
  catalogVersions: Array<{ at: Date; base_rate: number | null; currency: string | null }>;
}

/**
 * Assigning catalog Specialists to orgs (spec 2.3, 4.2): the first becomes primary and exactly
 * one stays primary (a database rule too); rates are versioned; the workspace alias is generated
 * here. Work on one org is serialized by locking the org row.
 */
@Injectable()
export class AssignmentsService {
  constructor(
    private readonly repo: AssignmentsRepository,
    private readonly catalog: SpecialistsRepository,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly mailboxes: MailboxesService,
    @Inject(orgsConfig.token) private readonly config: OrgsConfig,
    private readonly clock: Clock,
  ) {}

  async list(scope: OrgScope): Promise<OsaDto[]> {
    await this.orgs.get(scope.orgId);
    return (await this.repo.listActive(scope)).map(toOsaDto);
  }

  /** The org's primary Specialist assignment, for work whose org is known to exist (no 404 for it); undefined when it has none. */
  async primary(scope: OrgScope): Promise<OsaDto | undefined> {
    const row = (await this.repo.listActive(scope)).find((a) => a.isPrimary);
    return row ? toOsaDto(row) : undefined;
  }

  async get(scope: OrgScope, assignmentId: string): Promise<OsaDto> {
    return toOsaDto(await this.require(scope, assignmentId));
  }

  /** Resolves an inbound mail's recipient: the active OSA whose `email_alias` it is, or was before a rebrand. */
  async findByAlias(address: string): Promise<OsaDto | undefined> {
    const row = await this.repo.unscopedFindActiveByAlias(address.trim().toLowerCase());
    return row ? toOsaDto(row) : undefined;
  }

  async hasAssignment(scope: OrgScope): Promise<boolean> {
    return (await this.repo.listActive(scope)).length > 0;
  }

  async assign(actor: Principal, scope: OrgScope, input: AssignSpecialistInput): Promise<OsaDto> {
    const created = await this.dbService.transaction(async () => {
      const org = await this.orgs.lockForUpdate(scope.orgId);
      const specialist = await this.catalog.findById(input.specialistId);
      if (!specialist) throw AppError.notFound('Specialist');
      if (await this.repo.findActiveBySpecialist(scope, specialist.id)) throw AppError.conflict('This Specialist is already assigned to the org');
      const alias = await generateWorkspaceAlias(firstNameOf(specialist.name), org.slug, this.config.workspaceDomain, (a) => this.repo.unscopedAliasTaken(a));
      const isPrimary = (await this.repo.listActive(scope)).every((a) => !a.isPrimary);
      const row = await this.repo.insert(scope, {
        specialistId: specialist.id,
        isPrimary,
        monthlyRate: input.monthlyRate ?? null,
        overrideReason: input.monthlyRate != null ? (input.overrideReason ?? null) : null,
        rateEffectiveFrom: input.rateEffectiveFrom ?? null,
        rateEffectiveUntil: input.rateEffectiveUntil ?? null,
        emailAlias: alias,
      });
      await this.repo.addRateHistory(scope, {
        assignmentId: row.id,
        monthlyRate: row.monthlyRate,
        overrideReason: row.overrideReason,
        rateEffectiveFrom: row.rateEffectiveFrom,
        rateEffectiveUntil: row.rateEffectiveUntil,
        changedBy: actor.userId,
      });
      return { ...row, specialist };
    });
    await this.audit.record({
      action: 'osa.assigned',
      userId: actor.userId,
      resourceId: created.id,
      orgId: scope.orgId,
      impersonatorId: actor.impersonatorId,
      meta: { specialistId: created.specialistId, isPrimary: created.isPrimary, monthlyRate: created.monthlyRate, email_alias: created.emailAlias },
    });
    await this.mailboxes.afterAssigned(scope, created.id);
    return toOsaDto((await this.repo.findActive(scope, created.id)) ?? created);
  }

  /**
   * The org's slug changed (the AM's re-edit, or the client's Phase 2 confirmation): every active
   * OSA gets the address of the new slug (spec 2.3.1); its old address stays a rebrand alias that
   * still routes inbound mail. Runs inside the caller's transaction, the org row locked, so the
   * aliases change with the slug or not at all.
   */
  async followSlug(actor: Principal | null, scope: OrgScope, slug: string): Promise<void> {
    for (const current of await this.repo.listActive(scope)) {
      const next = await generateWorkspaceAlias(firstNameOf(current.specialist.name), slug, this.config.workspaceDomain, (a) => this.repo.unscopedAliasTaken(a, current.id));
      if (next === current.emailAlias) continue;
      await this.repo.replaceAlias(scope, current.id, current.emailAlias, next);
      await this.audit.record({
        action: 'osa.alias_regenerated',
        userId: actor?.userId,
        resourceId: current.id,
        orgId: scope.orgId,
        impersonatorId: actor?.impersonatorId,
        meta: { from: current.emailAlias, to: next, slug },
      });
    }
  }

  /**
   * A rate change is a new version in the rate history (billing prorates across versions). The
   * same values again change nothing: no write, no version, no audit row (spec 4.2 "skips
   * unchanged ones").
   */
  async updateRate(actor: Principal, scope: OrgScope, assignmentId: string, input: UpdateAssignmentInput): Promise<OsaDto> {
    const { before, after } = await this.dbService.transaction(async () => {
      await this.orgs.lockForUpdate(scope.orgId);
      const current = await this.require(scope, assignmentId);
      const values = {
        monthlyRate: input.monthlyRate,
        overrideReason: input.monthlyRate != null ? (input.overrideReason ?? null) : null,
        rateEffectiveFrom: input.rateEffectiveFrom === undefined ? current.rateEffectiveFrom : input.rateEffectiveFrom,
        rateEffectiveUntil: input.rateEffectiveUntil === undefined ? current.rateEffectiveUntil : input.rateEffectiveUntil,
      };
      if ((Object.keys(values) as Array<keyof typeof values>).every((k) => values[k] === current[k])) return { before: current, after: null };
      const row = await this.repo.update(scope, assignmentId, values);
      await this.repo.addRateHistory(scope, { assignmentId, ...values, changedBy: actor.userId });
      return { before: current, after: { ...row!, specialist: current.specialist } };
    });
    if (!after) return toOsaDto(before);
    await this.audit.record({
      action: 'osa.rate_updated',
      userId: actor.userId,
      resourceId: assignmentId,
      orgId: scope.orgId,
      impersonatorId: actor.impersonatorId,
      meta: { from: { monthlyRate: before.monthlyRate, overrideReason: before.overrideReason }, to: { monthlyRate: after.monthlyRate, overrideReason: after.overrideReason } },
    });
    return toOsaDto(after);
  }

  /** Unassigns (the row stays for billing history); a primary hands over to the oldest remaining. */
  async unassign(actor: Principal, scope: OrgScope, specialistId: string): Promise<void> {
    const removed = await this.dbService.transaction(async () => {
      await this.orgs.lockForUpdate(scope.orgId);
      const current = await this.repo.findActiveBySpecialist(scope, specialistId);
      if (!current) throw AppError.notFound('Assignment');
      const now = this.clock.now();
      await this.repo.update(scope, current.id, {
        unassignedAt: now,
        isPrimary: false,
        ...(current.mailboxUserId && !current.mailboxArchivedAt ? { mailboxArchivedAt: now } : {}),
      });
      if (current.isPrimary) {
        const [next] = await this.repo.listActive(scope);
        if (next) await this.repo.update(scope, next.id, { isPrimary: true });
      }
      return current;
    });
    await this.audit.record({ action: 'osa.unassigned', userId: actor.userId, resourceId: removed.id, orgId: scope.orgId, impersonatorId: actor.impersonatorId, meta: { specialistId } });
    if (removed.mailboxUserId && !removed.mailboxArchivedAt) await this.mailboxes.archiveMailbox(scope, removed.mailboxUserId);
  }

  /**
   * What billing needs of these orgs' assignments, unassigned ones included: when each was made
   * and ended, its rate versions and its Specialist's catalog rate versions (oldest first).
   */
  async billingSources(scopes: readonly OrgScope[]): Promise<AssignmentBillingSource[]> {
    const rows = await this.repo.allForOrgs(scopes);
    const [versions, catalog] = await Promise.all([
      this.repo.rateHistoryFor(
        scopes,
        rows.map((r) => r.id),
      ),
      this.catalog.rateHistoryFor([...new Set(rows.map((r) => r.specialistId))]),
    ]);
    return rows.map((r) => {
      const own = versions.filter((v) => v.assignmentId === r.id);
      const catalogVersions = catalog.filter((c) => c.specialistId === r.specialistId).map((c) => ({ at: c.createdAt, base_rate: c.baseRate, currency: c.currency }));
      return {
        id: r.id,
        orgId: r.orgId,
        specialistId: r.specialistId,
        specialistName: r.specialist.name,
        createdAt: r.createdAt,
        unassignedAt: r.unassignedAt,
        rateVersions: (own.length > 0 ? own : [{ ...r, createdAt: r.createdAt }]).map((v) => ({
          at: v.createdAt,
          monthlyRate: v.monthlyRate,
          rateEffectiveFrom: v.rateEffectiveFrom,
          rateEffectiveUntil: v.rateEffectiveUntil,
        })),
        // Specialists made before the catalog was versioned have their current rate only.
        catalogVersions:
          catalogVersions.length > 0
            ? catalogVersions
            : [{ at: r.specialist.createdAt, base_rate: r.specialist.monthlyRateConfig?.base_rate ?? null, currency: r.specialist.monthlyRateConfig?.currency ?? null }],
      };
    });
  }

  /** Assignment id -> its Specialist (id and name), unassigned ones included: of one org with a scope, else of any org. */
  async specialistsOf(scope: OrgScope | null, assignmentIds: string[]): Promise<Map<string, { specialistId: string; name: string; orgId: string }>> {
    const ids = [...new Set(assignmentIds)];
    const rows = scope ? await this.repo.byIds(scope, ids) : await this.repo.unscopedByIds(ids);
    return new Map(rows.map((r) => [r.id, { specialistId: r.specialistId, name: r.specialist.name, orgId: r.orgId }]));
  }

  /** Every active assignment's org and Specialist. */
  async activeInstances(): Promise<Array<{ id: string; orgId: string; specialistId: string }>> {
    return (await this.repo.unscopedAllActive()).map((r) => ({ id: r.id, orgId: r.orgId, specialistId: r.specialistId }));
  }

  async rateHistory(scope: OrgScope, assignmentId: string) {
    await this.require(scope, assignmentId);
    return this.repo.rateHistory(scope, assignmentId);
  }

  private async require(scope: OrgScope, assignmentId: string): Promise<OsaWithSpecialist> {
    const row = await this.repo.findActive(scope, assignmentId);
    if (!row) throw AppError.notFound('Assignment');
    return row;
  }
}
