import { Injectable } from '@nestjs/common';
import type { ClientBriefDto, ClientBriefListQuery, CreateClientBriefInput, UpdateClientBriefInput } from '../../contracts/client-briefs.js';
import { isClientRole } from '../../contracts/roles.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AppError } from '../../platform/errors/app-error.js';
import { decodeCursor, pageOf } from '../../platform/http/pagination.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { ExpertsService } from '../experts/index.js';
import { OrgsService } from '../orgs/index.js';
import { briefAccess, type BriefAccess } from './client-briefs.access.js';
import { ClientBriefsRepository, PROMPT_BRIEFS } from './client-briefs.repository.js';
import type { ClientBriefRow } from './client-briefs.tables.js';

export function toClientBriefDto(row: ClientBriefRow): ClientBriefDto {
  return {
    id: row.id,
    orgId: row.orgId,
    title: row.title,
    content: row.content,
    createdBy: row.createdBy,
    updatedBy: row.updatedBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Client briefs (spec 9.2): edited by the org's admins and AMs, read by the org and covering staff. */
@Injectable()
export class ClientBriefsService {
  constructor(
    private readonly repo: ClientBriefsRepository,
    private readonly orgs: OrgsService,
    private readonly experts: ExpertsService,
    private readonly audit: AuditService,
  ) {}

  async list(actor: Principal, query: ClientBriefListQuery) {
    const scope = await this.requireAccess(actor, await this.orgOf(actor, query.orgId), 'read');
    const page = { limit: query.limit, after: decodeCursor(query.cursor) };
    return pageOf(await this.repo.list(scope, page), page.limit, (r) => ({ at: r.createdAt, id: r.id }), toClientBriefDto);
  }

  async get(actor: Principal, id: string): Promise<ClientBriefDto> {
    return toClientBriefDto((await this.findFor(actor, id, 'read')).row);
  }

  async create(actor: Principal, input: CreateClientBriefInput): Promise<ClientBriefDto> {
    const scope = await this.requireAccess(actor, await this.orgOf(actor, input.orgId), 'edit');
    const row = await this.repo.insert(scope, { title: input.title, content: input.content, createdBy: actor.userId, updatedBy: actor.userId });
    await this.record(actor, 'client_brief.created', row, { title: row.title });
    return toClientBriefDto(row);
  }

  async update(actor: Principal, id: string, input: UpdateClientBriefInput): Promise<ClientBriefDto> {
    const { scope } = await this.findFor(actor, id, 'edit');
    const row = await this.repo.update(scope, id, { title: input.title, content: input.content, updatedBy: actor.userId });
    if (!row) throw AppError.notFound('Client brief');
    await this.record(actor, 'client_brief.updated', row, { fields: Object.keys(input).filter((k) => input[k as keyof UpdateClientBriefInput] !== undefined) });
    return toClientBriefDto(row);
  }

  async remove(actor: Principal, id: string): Promise<void> {
    const { scope } = await this.findFor(actor, id, 'edit');
    const row = await this.repo.delete(scope, id);
    if (!row) throw AppError.notFound('Client brief');
    await this.record(actor, 'client_brief.deleted', row, { title: row.title });
  }

  /** The org's briefs, oldest first (the Specialist agent's prompt and its brief tool). */
  briefsOf(scope: OrgScope, limit = PROMPT_BRIEFS): Promise<ClientBriefRow[]> {
    return this.repo.oldestFirst(scope, limit);
  }

  /**
   * The org a list or create acts on. A client's comes from its verified memberships; internal
   * roles name it (and it must exist).
   */
  private async orgOf(actor: Principal, requested: string | undefined): Promise<string> {
    if (requested && actor.orgMemberships.some((m) => m.orgId === requested)) return requested;
    if (isClientRole(actor.platformRole)) return memberOrgId(actor, requested);
    if (!requested) throw new AppError('validation_failed', 'Invalid input', { details: [{ field: 'orgId', message: 'Name the org' }] });
    if (!(await this.orgs.findById(requested))) throw AppError.notFound('Organization');
    return requested;
  }

  private async findFor(actor: Principal, id: string, needed: Exclude<BriefAccess, 'none'>): Promise<{ row: ClientBriefRow; scope: OrgScope }> {
    const row = await this.repo.unscopedFindById(id);
    if (!row) throw AppError.notFound('Client brief');
    return { row, scope: await this.requireAccess(actor, row.orgId, needed, 'Client brief') };
  }

  /** 404 without access (the org or the brief is not revealed), 403 when reading is all the caller may do. */
  private async requireAccess(actor: Principal, orgId: string, needed: Exclude<BriefAccess, 'none'>, what = 'Organization'): Promise<OrgScope> {
    const access = await this.accessTo(actor, orgId);
    if (access === 'none') throw AppError.notFound(what);
    if (needed === 'edit' && access !== 'edit') throw AppError.forbidden("Only the org's owners and admins, account managers and superadmins edit client briefs");
    return requestScope(orgId, 'access_rule');
  }

  private async accessTo(actor: Principal, orgId: string): Promise<BriefAccess> {
    const covers = actor.platformRole === 'expert' && (await this.experts.orgIdsOf(actor.userId)).includes(orgId);
    return briefAccess(actor, orgId, covers);
  }

  private record(actor: Principal, action: string, row: ClientBriefRow, meta: Record<string, unknown>): Promise<void> {
    return this.audit.record({ action, userId: actor.userId, resourceId: row.id, orgId: row.orgId, impersonatorId: actor.impersonatorId, meta });
  }
}
