import { Injectable } from '@nestjs/common';
import { and, asc, count, desc, eq, ilike, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { containsPattern, newerThan, olderThan } from '../../platform/db/query-parts.js';
import type { Keyset } from '../../platform/http/pagination.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { orgMemberships } from './memberships.tables.js';
import { users, type NewUserRow, type UserRow } from './users.tables.js';
import { principalFromJson, principalOf, type PrincipalJson } from './users.sql.js';
import type { PrincipalRecord } from '../../platform/auth/principal.js';

export interface MembershipRecord {
  orgId: string;
  orgRole: OrgRole;
}

export interface UserSearch {
  role?: PlatformRole;
  /** Part of the name or the email, case-insensitive. */
  q?: string;
  status?: UserRow['status'];
}

export interface OrgMemberRecord extends MembershipRecord {
  membershipId: string;
  userId: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  status: string;
  joinedAt: Date;
}

/**
 * Queries of the users and memberships tables; no rules. Membership queries of one org take its
 * scope first; the ones keyed by a user (their own memberships across orgs) do not.
 */
@Injectable()
export class UsersRepository {
  /** The user's current state as the auth layer needs it, memberships included: one prepared statement. */
  private readonly principalById: PreparedStatement<Array<{ principal: PrincipalJson | null }>, { id: string }>;

  constructor(private readonly dbService: DbService) {
    this.principalById = dbService.prepared('users_principal_by_id', (db) => db.select({ principal: principalOf(sql`${sql.placeholder('id')}::uuid`) }).from(sql`(select 1) as principal`));
  }

  private get db() {
    return this.dbService.db;
  }

  async findById(id: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id));
    return row;
  }

  async findByIds(ids: string[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .select()
      .from(users)
      .where(inArray(users.id, [...new Set(ids)]));
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.email, email.toLowerCase()));
    return row;
  }

  async findPrincipal(id: string): Promise<PrincipalRecord | undefined> {
    const [row] = await this.principalById({ id });
    return row?.principal ? principalFromJson(row.principal) : undefined;
  }

  async listByRole(role: PlatformRole): Promise<UserRow[]> {
    return this.db.select().from(users).where(eq(users.platformRole, role)).orderBy(asc(users.name), asc(users.email));
  }

  /** Newest first, keyset-paginated (`limit + 1` rows); removed users are left out. */
  async search(filter: UserSearch, page: { limit: number; after?: Keyset }): Promise<UserRow[]> {
    return this.db
      .select()
      .from(users)
      .where(
        and(
          isNull(users.removedAt),
          filter.role ? eq(users.platformRole, filter.role) : undefined,
          filter.status ? eq(users.status, filter.status) : undefined,
          filter.q ? or(ilike(users.name, containsPattern(filter.q)), ilike(users.email, containsPattern(filter.q))) : undefined,
          olderThan(users.createdAt, users.id, page.after),
        ),
      )
      .orderBy(desc(users.createdAt), desc(users.id))
      .limit(page.limit + 1);
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
    return rows.length === 1;
  }

  async insert(values: NewUserRow): Promise<UserRow> {
    const [row] = await this.db
      .insert(users)
      .values({ ...values, email: values.email.toLowerCase() })
      .returning();
    return row!;
  }

  async update(id: string, values: Partial<NewUserRow>): Promise<UserRow | undefined> {
    const [row] = await this.db
      .update(users)
      .set({ ...values, updatedAt: systemNow() })
      .where(eq(users.id, id))
      .returning();
    return row;
  }

  /** Moves the last accepted TOTP step forward; false when `step` is not after it (a replayed code). */
  async advanceTotpStep(id: string, step: number): Promise<boolean> {
    const rows = await this.db
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return rows.length === 1;
  }

  async countByRole(role: PlatformRole, opts: { activeOnly?: boolean; excludeId?: string } = {}): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.platformRole, role), opts.activeOnly ? eq(users.status, 'active') : undefined, opts.excludeId ? ne(users.id, opts.excludeId) : undefined));
    return Number(row?.n ?? 0);
  }

  /** A user's memberships in every org (their own orgs: keyed by the user, no org to scope by). */
  async unscopedMembershipsOfUser(userId: string): Promise<MembershipRecord[]> {
    return this.db.select({ orgId: orgMemberships.orgId, orgRole: orgMemberships.orgRole }).from(orgMemberships).where(eq(orgMemberships.userId, userId)).orderBy(asc(orgMemberships.createdAt));
  }

  async upsertMembership(scope: OrgScope, userId: string, orgRole: OrgRole): Promise<void> {
    await this.db
      .insert(orgMemberships)
      .values({ orgId: scope.orgId, userId, orgRole })
      .onConflictDoUpdate({ target: [orgMemberships.orgId, orgMemberships.userId], set: { orgRole } });
  }

  async membership(scope: OrgScope, userId: string): Promise<MembershipRecord | undefined> {
    const [row] = await this.db
      .select({ orgId: orgMemberships.orgId, orgRole: orgMemberships.orgRole })
      .from(orgMemberships)
      .where(and(inOrg(orgMemberships.orgId, scope), eq(orgMemberships.userId, userId)));
    return row;
  }

  /** The members of one org with their user, oldest membership first. */
  async membersOfOrg(scope: OrgScope, page?: { limit: number; after?: Keyset }): Promise<OrgMemberRecord[]> {
    const query = this.db
      .select({
        membershipId: orgMemberships.id,
        orgId: orgMemberships.orgId,
        orgRole: orgMemberships.orgRole,
        userId: users.id,
        email: users.email,
        name: users.name,
        platformRole: users.platformRole,
        status: users.status,
        joinedAt: orgMemberships.createdAt,
      })
      .from(orgMemberships)
      .innerJoin(users, eq(users.id, orgMemberships.userId))
      .where(and(inOrg(orgMemberships.orgId, scope), page && newerThan(orgMemberships.createdAt, orgMemberships.id, page.after)))
      .orderBy(asc(orgMemberships.createdAt), asc(orgMemberships.id));
    return page ? query.limit(page.limit + 1) : query;
  }

  async setMembershipRole(scope: OrgScope, userId: string, orgRole: OrgRole): Promise<boolean> {
    const rows = await this.db
      .update(orgMemberships)
      .set({ orgRole })
      .where(and(inOrg(orgMemberships.orgId, scope), eq(orgMemberships.userId, userId)))
      .returning({ id: orgMemberships.id });
    return rows.length === 1;
  }

  async removeMembership(scope: OrgScope, userId: string): Promise<boolean> {
    const rows = await this.db
      .delete(orgMemberships)
      .where(and(inOrg(orgMemberships.orgId, scope), eq(orgMemberships.userId, userId)))
      .returning({ id: orgMemberships.id });
    return rows.length === 1;
  }

  /** Ends a user's memberships in every org (the user is anonymised). */
  async unscopedRemoveMembershipsOfUser(userId: string): Promise<void> {
    await this.db.delete(orgMemberships).where(eq(orgMemberships.userId, userId));
  }

  /** Locks the membership rows of an org until the transaction ends (owner counts stay true). */
  async lockMemberships(scope: OrgScope): Promise<void> {
    await this.db.select({ id: orgMemberships.id }).from(orgMemberships).where(inOrg(orgMemberships.orgId, scope)).for('update');
  }

  async countOwners(scope: OrgScope): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(orgMemberships)
      .where(and(inOrg(orgMemberships.orgId, scope), eq(orgMemberships.orgRole, 'owner')));
    return Number(row?.n ?? 0);
  }

  /** The orgs in which this user is the one and only owner, across every org. */
  async unscopedOrgsSolelyOwnedBy(userId: string): Promise<string[]> {
    const rows = await this.db
      .select({ orgId: orgMemberships.orgId })
      .from(orgMemberships)
      .where(
        and(
          eq(orgMemberships.userId, userId),
          eq(orgMemberships.orgRole, 'owner'),
          sql`not exists (select 1 from org_memberships o where o.org_id = ${orgMemberships.orgId} and o.org_role = 'owner' and o.user_id <> ${userId})`,
        ),
      );
    return rows.map((r) => r.orgId);
  }

  /** The user ids of one org's members holding one of these org roles. */
  async memberIdsWithRoles(scope: OrgScope, roles: readonly OrgRole[]): Promise<string[]> {
    if (roles.length === 0) return [];
    const rows = await this.db
      .select({ userId: orgMemberships.userId })
      .from(orgMemberships)
      .where(and(inOrg(orgMemberships.orgId, scope), inArray(orgMemberships.orgRole, [...roles])));
    return rows.map((r) => r.userId);
  }
}
