import { Injectable } from '@nestjs/common';
import type { CreateGrantInput, GrantDto } from '../../contracts/experts.js';
import { AccessEvents } from '../../platform/auth/access-events.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { pageOf, type Keyset } from '../../platform/http/pagination.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';
import { ExpertsRepository } from './experts.repository.js';
import type { ExpertGrantRow } from './experts.tables.js';

export interface ExpertCoverage {
  orgId: string;
  scope: 'org' | 'specialist';
  specialistIds: string[];
}

interface ExpertSummary {
  id: string;
  name: string;
  email: string;
}

/** Expert coverage (spec 2.4): grants are the only mechanism; coverage never gates an invite. */
@Injectable()
export class ExpertsService {
  constructor(
    private readonly repo: ExpertsRepository,
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly assignments: AssignmentsService,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly accessEvents: AccessEvents,
  ) {}

  async experts(): Promise<ExpertSummary[]> {
    return (await this.users.listByRole('expert')).filter((u) => u.status === 'active').map((u) => ({ id: u.id, name: u.name, email: u.email }));
  }

  /** Active Experts, newest first, keyset-paginated (the wizard's picker). */
  async expertsPage(page: { limit: number; after?: Keyset }): Promise<{ items: ExpertSummary[]; nextCursor: string | null }> {
    const rows = await this.users.search({ role: 'expert', status: 'active' }, page);
    return pageOf(
      rows,
      page.limit,
      (u) => ({ at: u.createdAt, id: u.id }),
      (u) => ({ id: u.id, name: u.name, email: u.email }),
    );
  }

  async grants(scope: OrgScope): Promise<GrantDto[]> {
    await this.orgs.get(scope.orgId);
    return this.toDtos(await this.repo.listForOrg(scope));
  }

  hasGrant(scope: OrgScope): Promise<boolean> {
    return this.repo.listForOrg(scope).then((rows) => rows.length > 0);
  }

  /** The orgs an Expert reaches through grants, org-wide or for some of their Specialists. */
  orgIdsOf(expertId: string): Promise<string[]> {
    return this.repo.unscopedOrgIdsOfExpert(expertId);
  }

  async grant(actor: Principal, scope: OrgScope, input: CreateGrantInput): Promise<GrantDto> {
    const { orgId } = scope;
    const row = await this.dbService.transaction(async () => {
      await this.orgs.lockForUpdate(orgId);
      const expert = await this.users.findById(input.expertId);
      if (!expert || expert.platformRole !== 'expert') throw AppError.notFound('Expert');
      const existing = await this.repo.listForOrg(scope);
      if (input.scope === 'org' && existing.some((g) => g.expertId === expert.id && g.scope === 'org')) {
        throw AppError.conflict('This Expert already has an org-wide grant on this org');
      }
      const specialistIds = [...new Set(input.specialistIds ?? [])];
      const sameSet = (ids: readonly string[]) => ids.length === specialistIds.length && specialistIds.every((id) => ids.includes(id));
      if (input.scope === 'specialist' && existing.some((g) => g.expertId === expert.id && g.scope === 'specialist' && sameSet(g.specialistIds))) {
        throw AppError.conflict('This Expert already has a grant for these Specialists on this org');
      }
      if (input.scope === 'specialist') {
        const assigned = new Set((await this.assignments.list(scope)).map((a) => a.specialistId));
        const foreign = specialistIds.filter((id) => !assigned.has(id));
        if (foreign.length > 0) {
          throw new AppError('validation_failed', 'Invalid body', {
            details: [{ field: 'specialistIds', message: `Not assigned to this org: ${foreign.join(', ')}` }],
          });
        }
      }
      return this.repo.insert(scope, { expertId: expert.id, scope: input.scope, specialistIds, createdBy: actor.userId });
    });
    // The Expert's open sockets join the org's rooms.
    this.accessEvents.emit({ kind: 'reach_changed', userId: row.expertId });
    await this.audit.record({
      action: 'expert_grant.created',
      userId: actor.userId,
      resourceId: row.id,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { expertId: row.expertId, scope: row.scope, specialistIds: row.specialistIds },
    });
    return (await this.toDtos([row]))[0]!;
  }

  /** What an Expert's grants reach: per org, every Specialist (scope 'org') or the listed ones. */
  async coverageOf(expertId: string): Promise<ExpertCoverage[]> {
    return (await this.repo.unscopedListForExpert(expertId)).map((g) => ({ orgId: g.orgId, scope: g.scope, specialistIds: g.specialistIds }));
  }

  /** The active Experts covering one Specialist of an org (org-wide grants cover every Specialist). */
  async coveringExperts(scope: OrgScope, specialistId: string): Promise<string[]> {
    const grants = (await this.repo.listForOrg(scope)).filter((g) => g.scope === 'org' || g.specialistIds.includes(specialistId));
    const ids: string[] = [];
    for (const id of new Set(grants.map((g) => g.expertId))) {
      const user = await this.users.findById(id);
      if (user?.status === 'active' && user.platformRole === 'expert') ids.push(id);
    }
    return ids;
  }

  /**
   * Expert leverage (spec 8.1): per active Expert, the client orgs their grants reach and the
   * active Specialist instances (OSAs) those grants cover; an org-wide grant covers every one.
   */
  async leverage(): Promise<Array<ExpertSummary & { clients: number; specialistInstances: number }>> {
    const [experts, grants, instances] = await Promise.all([this.experts(), this.repo.unscopedListAll(), this.assignments.activeInstances()]);
    return experts.map((e) => {
      const own = grants.filter((g) => g.expertId === e.id);
      const covered = instances.filter((i) => own.some((g) => g.orgId === i.orgId && (g.scope === 'org' || g.specialistIds.includes(i.specialistId))));
      return { ...e, clients: new Set(own.map((g) => g.orgId)).size, specialistInstances: covered.length };
    });
  }

  /** Used by the demo login: an org-wide grant for an Expert, once. */
  async ensureOrgWideGrant(scope: OrgScope, expertId: string): Promise<void> {
    const existing = await this.repo.listForOrg(scope);
    if (!existing.some((g) => g.expertId === expertId && g.scope === 'org')) {
      await this.repo.insert(scope, { expertId, scope: 'org', specialistIds: [] });
    }
  }

  async revoke(actor: Principal, scope: OrgScope, grantId: string): Promise<void> {
    const { orgId } = scope;
    const row = await this.repo.delete(scope, grantId);
    if (!row) throw AppError.notFound('Grant');
    // The Expert's open sockets leave what no other grant of theirs covers.
    this.dbService.afterCommit(() => this.accessEvents.emit({ kind: 'reach_changed', userId: row.expertId }));
    await this.audit.record({
      action: 'expert_grant.removed',
      userId: actor.userId,
      resourceId: grantId,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { expertId: row.expertId, scope: row.scope },
    });
  }

  /** Per assigned Specialist, the Experts covering it: org-wide grants cover all, current and future. */
  async coverage(scope: OrgScope) {
    const [assignments, grants] = await Promise.all([this.assignments.list(scope), this.repo.listForOrg(scope)]);
    const experts = await this.summaries(grants.map((g) => g.expertId));
    return assignments.map((a) => ({
      assignmentId: a.id,
      specialistId: a.specialistId,
      specialistName: a.specialist.name,
      experts: grants
        .filter((g) => g.scope === 'org' || g.specialistIds.includes(a.specialistId))
        .map((g) => ({ ...experts.get(g.expertId)!, scope: g.scope }))
        .filter((e, i, all) => e.id && all.findIndex((x) => x.id === e.id) === i),
    }));
  }

  private async summaries(ids: string[]): Promise<Map<string, ExpertSummary>> {
    const out = new Map<string, ExpertSummary>();
    for (const id of new Set(ids)) {
      const u = await this.users.findById(id);
      if (u) out.set(id, { id: u.id, name: u.name, email: u.email });
    }
    return out;
  }

  private async toDtos(rows: ExpertGrantRow[]): Promise<GrantDto[]> {
    const experts = await this.summaries(rows.map((r) => r.expertId));
    return rows.map((r) => ({
      id: r.id,
      orgId: r.orgId,
      expertId: r.expertId,
      expert: experts.get(r.expertId) ?? { id: r.expertId, name: '', email: '' },
      scope: r.scope,
      specialistIds: r.specialistIds,
      createdAt: r.createdAt.toISOString(),
    }));
  }
}
