import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ORG_SLUG_MESSAGE, type CreateOrgInput, type Phase0Status, type SlugAvailability, type UpdateOrgInput } from '../../contracts/orgs.js';
import type { FieldError } from '../../contracts/errors.js';
import { AccessEvents } from '../../platform/auth/access-events.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { pageOf, type Keyset } from '../../platform/http/pagination.js';
import { Ports } from '../../platform/ports/ports.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { UsersService } from '../users/index.js';
import { ORG_ASSIGNMENTS, ORG_GRANTS, ORG_INVITE, type OrgAssignmentsPort, type OrgGrantsPort, type OrgInvitePort } from './orgs.ports.js';
import { OrgsRepository, type OrgSummary } from './orgs.repository.js';
import { STALE_ORG_DAYS, TRIAL_ENDING_DAYS, isConsumerMailDomain, isIanaTimezone, phase0Missing, slugEditable, slugFormatProblem, trialDateOk, trialEndOnConfirm } from './orgs.rules.js';
import { ORG_TRANSITIONS, canTransition, orgTransition, type OrgTransition } from './orgs.status.js';
import type { OrgDto, OrgListItem } from './orgs.schemas.js';
import type { NewOrgRow, OrgRow, OrgStatus } from './orgs.tables.js';

export type { OrgSummary };

const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } })?.cause?.code === '23505' || (err as { code?: string })?.code === '23505';

/** Organizations and the account manager's setup wizard (spec 2.1, 3.2, 4.2). */
@Injectable()
export class OrgsService implements OnModuleInit {
  private assignments!: OrgAssignmentsPort;
  private grants!: OrgGrantsPort;
  private invite!: OrgInvitePort;

  constructor(
    private readonly repo: OrgsRepository,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly accessEvents: AccessEvents,
    private readonly clock: Clock,
    private readonly ports: Ports,
  ) {}

  /** The assignments and Expert modules answer their part of the Phase 0 status (and the slug's aliases); onboarding, the invite's. */
  onModuleInit(): void {
    this.assignments = this.ports.one(ORG_ASSIGNMENTS);
    this.grants = this.ports.one(ORG_GRANTS);
    this.invite = this.ports.one(ORG_INVITE);
  }

  /** The org holding a slug, or the org a rebrand alias points to. */
  async findBySlug(slug: string): Promise<OrgRow | undefined> {
    const key = slug.toLowerCase();
    const held = await this.repo.findBySlug(key);
    if (held) return held;
    const reservation = await this.repo.unscopedFindReservation(key);
    return reservation?.kind === 'alias' ? this.repo.findById(reservation.orgId) : undefined;
  }

  /** A superadmin adds a slug alias for a rebrand: held for good, and lookups by it find the org. */
  async addSlugAlias(actor: Principal, id: string, slug: string): Promise<{ slug: string; orgId: string }> {
    await this.dbService.transaction(async () => {
      await this.lockForUpdate(id);
      await this.assertSlugFree(slug, id);
      if (!(await this.repo.reserve(requestScope(id, 'org_wide_role'), slug, 'alias'))) throw AppError.conflict('This slug is taken', { field: 'slug' });
    });
    await this.audit.record({ action: 'org.slug_alias_added', userId: actor.userId, resourceId: id, orgId: id, impersonatorId: actor.impersonatorId, meta: { slug } });
    return { slug, orgId: id };
  }

  /**
   * Scheduled: active orgs whose trial ends within TRIAL_ENDING_DAYS move to trial_ending (the
   * trial banner turns urgent); setups untouched for STALE_ORG_DAYS are deactivated, which
   * releases a slug that was only held (reserved slugs stay reserved).
   */
  async runLifecycleSweep(now: Date): Promise<{ trialEnding: string[]; archived: string[] }> {
    const ending = await this.repo.trialsEndingBy(new Date(now.getTime() + TRIAL_ENDING_DAYS * 86_400_000).toISOString().slice(0, 10));
    const trialEnding: string[] = [];
    for (const org of ending) {
      if (await this.moveOrg(org, 'trial_ending')) trialEnding.push(org.id);
    }
    const stale = await this.repo.staleIn([...ORG_TRANSITIONS.stale_archive.from], new Date(now.getTime() - STALE_ORG_DAYS * 86_400_000));
    const archived: string[] = [];
    for (const org of stale) {
      if (await this.moveOrg(org, 'stale_archive')) archived.push(org.id);
    }
    for (const id of trialEnding) await this.audit.record({ action: 'org.trial_ending', resourceId: id, orgId: id });
    for (const id of archived) await this.audit.record({ action: 'org.stale_archived', resourceId: id, orgId: id });
    return { trialEnding, archived };
  }

  findById(id: string): Promise<OrgRow | undefined> {
    return this.repo.findById(id);
  }

  /** The org for an agent turn's prompt and tools: cached until the row is written. Not for access decisions. */
  forTurn(id: string): Promise<OrgRow | undefined> {
    return this.repo.findForTurn(id);
  }

  /** The orgs an AM is the assigned AM of (their socket joins these org rooms). */
  orgIdsAssignedTo(amId: string): Promise<string[]> {
    return this.repo.idsAssignedTo(amId);
  }

  /** Makes a user the org's assigned AM (demo login; superadmins go through updateOrg). */
  async setAssignedAm(orgId: string, amId: string): Promise<void> {
    await this.repo.update(orgId, { assignedAmId: amId });
  }

  /** The org, its row locked for the current transaction (404 when unknown). */
  async lockForUpdate(id: string): Promise<OrgRow> {
    const org = await this.repo.lockById(id);
    if (!org) throw AppError.notFound('Organization');
    return org;
  }

  async get(id: string): Promise<OrgDto> {
    return toOrgDto(await this.require(id));
  }

  async summaries(ids: string[]): Promise<Map<string, OrgSummary>> {
    const rows = await this.repo.summaries([...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Creates an org row as given (the demo seed); the wizard goes through createOrg. An org asked
   * for active is created in pending_am_setup and finished, as the status table says.
   */
  async create(values: Omit<NewOrgRow, 'status'> & { status?: 'pending_am_setup' | 'active' }): Promise<OrgRow> {
    const { status, ...rest } = values;
    const created = await this.repo.insert({ ...rest, status: 'pending_am_setup' });
    if (status !== 'active') return created;
    return (await this.moveOrg(created, 'finish_without_invite', { activatedAt: rest.activatedAt ?? this.clock.now() }))!;
  }

  /** Full rows by id (the billing engine reads trial, start date and activation). */
  findByIds(ids: string[]): Promise<OrgRow[]> {
    return this.repo.findByIds([...new Set(ids)]);
  }

  /** Every org that has been activated: the ones billing runs for. */
  activatedOrgs(): Promise<OrgRow[]> {
    return this.repo.activated();
  }

  /** A page of the activated orgs, oldest first (see `OrgsRepository.activatedPage`). */
  activatedOrgsPage(page: { limit: number; after?: Keyset; only?: readonly string[]; except?: readonly string[] }): Promise<OrgRow[]> {
    return this.repo.activatedPage(page);
  }

  /** Spec 4.6: the billing email, set from the client's billing settings. */
  async setBillingEmail(id: string, billingEmail: string | null): Promise<OrgRow> {
    const row = await this.repo.update(id, { billingEmail });
    if (!row) throw AppError.notFound('Organization');
    return row;
  }

  /**
   * Spec 3.2 / 3.6: the access gate suspends an org whose grace period elapsed, and the payment
   * that clears the dunning brings it back (`payment_recovered`). False when the org was not in a
   * state the transition leaves from.
   */
  async applyBillingTransition(id: string, transition: 'grace_elapsed' | 'payment_recovered'): Promise<boolean> {
    const org = await this.lockForUpdate(id);
    if (!canTransition(transition, org.status)) return false;
    return (await this.moveOrg(org, transition)) !== undefined;
  }

  /** The clients list: each org with the name of its assigned account manager. */
  async list(filter: { status?: OrgStatus; q?: string; assignedAmId?: string }, page: { limit: number; after?: Keyset }): Promise<{ items: OrgListItem[]; nextCursor: string | null }> {
    const listed = pageOf(await this.repo.list(filter, page), page.limit, (r) => ({ at: r.createdAt, id: r.id }), toOrgDto);
    const amIds = [...new Set(listed.items.flatMap((o) => (o.assignedAmId ? [o.assignedAmId] : [])))];
    const names = new Map((amIds.length > 0 ? await this.users.findByIds(amIds) : []).map((u) => [u.id, u.name]));
    return { ...listed, items: listed.items.map((o) => ({ ...o, assignedAmName: (o.assignedAmId && names.get(o.assignedAmId)) || null })) };
  }

  /** 'taken' means held by another org that is not deactivated, or reserved for good. */
  async slugAvailability(slug: string, forOrgId?: string): Promise<SlugAvailability> {
    const problem = slugFormatProblem(slug);
    if (problem) return { slug, valid: false, available: false, reason: problem };
    const holder = await this.repo.findBySlug(slug);
    const reservation = await this.repo.unscopedFindReservation(slug);
    const taken = (holder && holder.id !== forOrgId) || (reservation && reservation.orgId !== forOrgId);
    return { slug, valid: true, available: !taken, reason: taken ? 'taken' : null };
  }

  async createOrg(actor: Principal, input: CreateOrgInput): Promise<OrgDto> {
    this.assertStep1(input);
    const org = await this.dbService.transaction(async () => {
      await this.assertSlugFree(input.slug);
      try {
        return await this.repo.insert({
          legalName: input.legalName,
          slug: input.slug,
          industry: input.industry,
          corporateDomains: input.corporateDomains,
          adminEmail: input.adminEmail,
          website: input.website,
          timezone: input.timezone,
          billingEmail: input.billingEmail ?? null,
          companySize: input.companySize ?? null,
          trialEndDate: input.trialEndDate ?? null,
          trialMode: input.trialMode ?? 'default',
          status: 'pending_am_setup',
          assignedAmId: actor.userId,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw AppError.conflict('This slug is taken', { field: 'slug' });
        throw err;
      }
    });
    await this.audit.record({ action: 'org.created', userId: actor.userId, resourceId: org.id, orgId: org.id, impersonatorId: actor.impersonatorId, meta: { slug: org.slug } });
    return toOrgDto(org);
  }

  /** Step-1 re-edit; the slug only while the client has not confirmed; the assigned AM by a superadmin. */
  async updateOrg(actor: Principal, id: string, input: UpdateOrgInput): Promise<OrgDto> {
    const before = await this.require(id);
    this.assertStep1(input);
    const changes: Omit<Partial<NewOrgRow>, 'status'> = {};
    for (const key of [
      'legalName',
      'industry',
      'corporateDomains',
      'adminEmail',
      'website',
      'timezone',
      'billingEmail',
      'companySize',
      'trialEndDate',
      'trialMode',
      'mailboxProvisioningDisabled',
    ] as const) {
      if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
    }
    if (input.trialMode === 'none' && before.trialEndDate && input.trialEndDate === undefined) changes.trialEndDate = null;
    const after = await this.dbService.transaction(async () => {
      if (input.slug !== undefined && input.slug !== before.slug) {
        const locked = await this.lockForUpdate(id);
        if (!slugEditable(locked.status)) throw AppError.conflict('The slug cannot change once the client has confirmed');
        await this.assertSlugFree(input.slug, id);
        changes.slug = input.slug;
      }
      if (input.assignedAmId !== undefined && input.assignedAmId !== before.assignedAmId) {
        if (actor.platformRole !== 'superadmin') throw AppError.forbidden('Only a superadmin can change the assigned AM');
        const am = await this.users.findById(input.assignedAmId);
        if (!am || am.platformRole !== 'account_manager') throw AppError.badRequest('assignedAmId must be an account manager');
        changes.assignedAmId = input.assignedAmId;
      }
      let updated: OrgRow;
      try {
        updated = (await this.repo.update(id, changes))!;
      } catch (err) {
        if (isUniqueViolation(err)) throw AppError.conflict('This slug is taken', { field: 'slug' });
        throw err;
      }
      // Only staff edit an org here (the account managers' routes: their org-wide role was checked).
      if (changes.slug) await this.assignments.followSlug(actor, requestScope(id, 'org_wide_role'), changes.slug);
      if (changes.adminEmail !== undefined && changes.adminEmail !== before.adminEmail) await this.invite.followAdminEmail(requestScope(id, 'org_wide_role'), updated);
      return updated;
    });
    await this.audit.record({
      action: 'org.updated',
      userId: actor.userId,
      resourceId: id,
      orgId: id,
      impersonatorId: actor.impersonatorId,
      meta: { changes: diff(before, after, Object.keys(changes) as Array<keyof OrgRow>) },
    });
    if (changes.assignedAmId) {
      // The AM's sockets follow: the former one leaves the org's room, the new one joins it.
      for (const userId of [before.assignedAmId, changes.assignedAmId]) if (userId) this.accessEvents.emit({ kind: 'reach_changed', userId });
    }
    return toOrgDto(after);
  }

  /** Read on the account managers' org routes only (the guard checked their org-wide role). */
  async phase0Status(id: string): Promise<Phase0Status> {
    const org = await this.require(id);
    const am = org.assignedAmId ? await this.users.findById(org.assignedAmId) : undefined;
    const missing = phase0Missing(org, am?.name, this.clock.now());
    const scope = requestScope(id, 'org_wide_role');
    const [specialistAssigned, expertMapped] = await Promise.all([this.assignments.hasAssignment(scope), this.grants.hasGrant(scope)]);
    return { ready: missing.length === 0, missing, specialistAssigned, expertMapped };
  }

  /**
   * sendOrgInvite's org side: the gate re-checked, the trial end and start date taken, the org in
   * pending_client_confirmation (a resend keeps it there). Runs inside the caller's transaction.
   */
  async markInvited(id: string, input: { trialEndDate?: string | null; startDate?: string | null }): Promise<OrgRow> {
    const org = await this.lockForUpdate(id);
    assertTransition(org, 'send_invite');
    if (input.trialEndDate && !trialDateOk(input.trialEndDate, this.clock.now())) {
      throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'trialEndDate', message: 'Must be strictly in the future' }] });
    }
    const gate = await this.phase0Status(id);
    if (!gate.ready) throw new AppError('phase0_gate_failed', 'The Phase 0 gate does not pass', { details: { missing: gate.missing } });
    return (await this.moveOrg(org, 'send_invite', {
      ...(input.trialEndDate !== undefined && { trialEndDate: input.trialEndDate }),
      ...(input.startDate !== undefined && { startDate: input.startDate }),
    }))!;
  }

  /**
   * The client confirms (Phase 2): the slug (which may still change) reserved for good and
   * atomically (of two orgs confirming the same slug, one wins and the other gets 409), the org
   * active and its trial started, and a changed slug's workspace aliases regenerated. Runs inside
   * the caller's transaction.
   */
  async confirmByClient(actor: Principal, scope: OrgScope, input: { legalName: string; slug: string }, now: Date): Promise<OrgRow> {
    const id = scope.orgId;
    const org = await this.lockForUpdate(id);
    assertTransition(org, 'client_confirms');
    await this.assertSlugFree(input.slug, id);
    if (!(await this.repo.reserve(scope, input.slug, 'reserved'))) throw AppError.conflict('This slug is taken', { field: 'slug' });
    let confirmed: OrgRow;
    try {
      confirmed = (await this.moveOrg(org, 'client_confirms', {
        legalName: input.legalName,
        slug: input.slug,
        activatedAt: org.activatedAt ?? now,
        trialStartedAt: now,
        trialEndDate: trialEndOnConfirm(org, now),
      }))!;
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict('This slug is taken', { field: 'slug' });
      throw err;
    }
    // The workspace aliases follow the confirmed slug in this transaction (spec 2.3.1, 3.2).
    if (input.slug !== org.slug) await this.assignments.followSlug(actor, scope, input.slug);
    return confirmed;
  }

  /** finishOrgSetup: the gate passes, the org becomes active, the slug is reserved for good; no email, no trial clock. */
  async finish(actor: Principal, id: string): Promise<OrgDto> {
    const org = await this.dbService.transaction(async () => {
      const current = await this.require(id);
      assertTransition(current, 'finish_without_invite');
      const gate = await this.phase0Status(id);
      if (!gate.ready) throw new AppError('phase0_gate_failed', 'The Phase 0 gate does not pass', { details: { missing: gate.missing } });
      if (!(await this.repo.reserve(requestScope(id, 'org_wide_role'), current.slug, 'reserved'))) throw AppError.conflict('This slug is reserved by another org', { field: 'slug' });
      const next = await this.moveOrg(current, 'finish_without_invite', { activatedAt: this.clock.now() });
      if (!next) throw AppError.conflict('The org changed meanwhile; reload and try again');
      return next;
    });
    await this.audit.record({ action: 'org.finished', userId: actor.userId, resourceId: id, orgId: id, impersonatorId: actor.impersonatorId, meta: { slug: org.slug } });
    return toOrgDto(org);
  }

  /**
   * The one writer of an org's status (spec 3.2): a transition the table refuses is a conflict;
   * undefined when the org left `org.status` meanwhile.
   */
  private moveOrg(org: OrgRow, transition: OrgTransition, values: Omit<Partial<NewOrgRow>, 'status'> = {}): Promise<OrgRow | undefined> {
    return this.repo.transition(org.id, org.status, { ...values, status: assertTransition(org, transition) });
  }

  private async require(id: string): Promise<OrgRow> {
    const org = await this.repo.findById(id);
    if (!org) throw AppError.notFound('Organization');
    return org;
  }

  private async assertSlugFree(slug: string, forOrgId?: string): Promise<void> {
    const availability = await this.slugAvailability(slug, forOrgId);
    if (availability.reason === 'taken') throw AppError.conflict('This slug is taken', { field: 'slug' });
    if (!availability.valid) {
      const message = availability.reason === 'reserved_word' ? 'This word is reserved' : ORG_SLUG_MESSAGE;
      throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'slug', message }] });
    }
  }

  /** The rules of spec 2.1 that a schema cannot say. */
  private assertStep1(input: Partial<CreateOrgInput>): void {
    const errors: FieldError[] = [];
    input.corporateDomains?.forEach((d, i) => {
      if (isConsumerMailDomain(d)) errors.push({ field: `corporateDomains.${i}`, message: 'Personal consumer-mail domains are not allowed' });
      if (input.corporateDomains!.indexOf(d) !== i) errors.push({ field: `corporateDomains.${i}`, message: 'Listed twice' });
    });
    if (input.timezone !== undefined && !isIanaTimezone(input.timezone)) errors.push({ field: 'timezone', message: 'Not an IANA timezone' });
    if (input.trialEndDate && !trialDateOk(input.trialEndDate, this.clock.now())) errors.push({ field: 'trialEndDate', message: 'Must be strictly in the future' });
    if (input.trialMode === 'none' && input.trialEndDate) errors.push({ field: 'trialEndDate', message: 'No trial end date with trial mode none' });
    if (input.slug !== undefined) {
      const problem = slugFormatProblem(input.slug);
      if (problem === 'invalid_format') errors.push({ field: 'slug', message: ORG_SLUG_MESSAGE });
      if (problem === 'reserved_word') errors.push({ field: 'slug', message: 'This word is reserved' });
    }
    if (errors.length > 0) throw new AppError('validation_failed', 'Invalid body', { details: errors });
  }
}

function assertTransition(org: OrgRow, transition: OrgTransition): OrgStatus {
  const next = orgTransition(transition, org.status);
  if (!next.ok) throw AppError.conflict(next.message);
  return next.to;
}

function diff(before: OrgRow, after: OrgRow, keys: Array<keyof OrgRow>): Record<string, { from: unknown; to: unknown }> {
  return Object.fromEntries(keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((k) => [k, { from: before[k], to: after[k] }]));
}

/** The route that serves an org's logo; the version makes a replaced logo a new address for every cache. */
export function logoPath(orgId: string, logoId: string): string {
  return `/api/orgs/${orgId}/logo?v=${logoId}`;
}

export function toOrgDto(r: OrgRow): OrgDto {
  return {
    id: r.id,
    legalName: r.legalName,
    slug: r.slug,
    industry: r.industry,
    corporateDomains: r.corporateDomains,
    adminEmail: r.adminEmail,
    website: r.website,
    timezone: r.timezone,
    logoUrl: r.logoId ? logoPath(r.id, r.logoId) : null,
    billingEmail: r.billingEmail,
    companySize: r.companySize,
    trialEndDate: r.trialEndDate,
    trialMode: r.trialMode,
    trialStartedAt: r.trialStartedAt?.toISOString() ?? null,
    startDate: r.startDate,
    status: r.status,
    activatedAt: r.activatedAt?.toISOString() ?? null,
    assignedAmId: r.assignedAmId,
    mailboxProvisioningDisabled: r.mailboxProvisioningDisabled,
    createdAt: r.createdAt.toISOString(),
  };
}
