import { Injectable } from '@nestjs/common';
import type { AuditItem, AuditQuery, AuditRef } from '../../contracts/admin.js';
import { auditWindow } from '../../contracts/admin.js';
import { AuditService, auditPage, type AuditFilter } from '../../platform/audit/audit.service.js';
import { decodeCursor } from '../../platform/http/pagination.js';
import { OrgsService } from '../orgs/index.js';
import { AssignmentsService, SpecialistsService } from '../specialists/index.js';
import { UsersService } from '../users/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Row = Omit<AuditItem, 'refs'>;

/** Every id a row carries: its columns, and the ids among the top-level values of its payload. */
function idsOf(row: Row): string[] {
  const ids = [row.userId, row.impersonatorId, row.orgId, row.resourceId];
  for (const value of Object.values(row.meta ?? {})) {
    if (typeof value === 'string') ids.push(value);
    else if (Array.isArray(value)) ids.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return ids.filter((id): id is string => typeof id === 'string' && UUID.test(id));
}

/**
 * The audit log as people read it (spec 6.3): each row with the names behind its ids, looked up
 * once per page among users, orgs, catalog Specialists and assignments.
 */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly audit: AuditService,
    private readonly users: UsersService,
    private readonly orgs: OrgsService,
    private readonly specialists: SpecialistsService,
    private readonly assignments: AssignmentsService,
  ) {}

  /** GET /ops/audit: the platform-wide log with its filters. */
  list(q: AuditQuery) {
    const { since, until } = auditWindow(q);
    const filter: AuditFilter = { actorId: q.actorId, resourceId: q.resourceId, about: q.userId, orgId: q.orgId, action: q.action, since, until };
    return this.page(filter, q);
  }

  /** One page of rows matching `filter`, newest first, with their names. */
  async page(filter: AuditFilter, page: { limit: number; cursor?: string }): Promise<{ items: AuditItem[]; nextCursor: string | null }> {
    const { items, nextCursor } = auditPage(await this.audit.unscopedList(filter, { limit: page.limit, after: decodeCursor(page.cursor) }), page.limit);
    const refs = await this.refsOf([...new Set(items.flatMap(idsOf))]);
    return {
      items: items.map((item) => ({ ...item, refs: Object.fromEntries(idsOf(item).flatMap((id) => (refs.has(id) ? [[id, refs.get(id)!]] : []))) })),
      nextCursor,
    };
  }

  private async refsOf(ids: string[]): Promise<Map<string, AuditRef>> {
    const refs = new Map<string, AuditRef>();
    if (ids.length === 0) return refs;
    const [users, orgs, specialists, assignments] = await Promise.all([this.users.findByIds(ids), this.orgs.summaries(ids), this.specialists.byIds(ids), this.assignments.specialistsOf(null, ids)]);
    for (const u of users) refs.set(u.id, { kind: 'user', name: u.name || u.email, email: u.email });
    for (const o of orgs.values()) refs.set(o.id, { kind: 'org', name: o.legalName });
    for (const s of specialists.values()) refs.set(s.id, { kind: 'specialist', name: s.name });
    for (const [id, a] of assignments) refs.set(id, { kind: 'assignment', name: a.name, orgId: a.orgId });
    return refs;
  }
}
