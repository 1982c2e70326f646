import { Injectable } from '@nestjs/common';
import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import { DbService } from '../../platform/db/db.service.js';
import { orgMemberships, users, type NewUserRow, type UserRow } from './users.tables.js';

export interface MembershipRecord {
  orgId: string;
  orgRole: OrgRole;
}

/** Queries of the users and memberships tables; no rules. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dbService: DbService) {}

  private get db() {
    return this.dbService.db;
  }

  async findById(id: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id));
    return row;
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.email, email.toLowerCase()));
    return row;
  }

  /**
   * The user and their memberships in one round trip: the read every authenticated request makes.
   * A named prepared statement, so PostgreSQL plans it once per connection.
   */
  private principalQuery?: ReturnType<UsersRepository['buildPrincipalQuery']>;

  private buildPrincipalQuery() {
    return this.dbService.root
      .select({
        user: users,
        memberships: sql<MembershipRecord[]>`coalesce(
          (select json_agg(json_build_object('orgId', m.org_id, 'orgRole', m.org_role) order by m.created_at)
             from org_memberships m where m.user_id = users.id), '[]'::json)`,
      })
      .from(users)
      .where(eq(users.id, sql.placeholder('id')))
      .prepare('users_principal_by_id');
  }

  async findWithMemberships(id: string): Promise<(UserRow & { memberships: MembershipRecord[] }) | undefined> {
    this.principalQuery ??= this.buildPrincipalQuery();
    const [row] = await this.principalQuery.execute({ id });
    return row ? { ...row.user, memberships: row.memberships } : undefined;
  }

  async listByRole(role: PlatformRole): Promise<UserRow[]> {
    return this.db.select().from(users).where(eq(users.platformRole, role)).orderBy(asc(users.name), asc(users.email));
  }

  async insert(values: NewUserRow): Promise<UserRow> {
    const [row] = await this.db.insert(users).values({ ...values, email: values.email.toLowerCase() }).returning();
    return row!;
  }

  async update(id: string, values: Partial<NewUserRow>): Promise<UserRow | undefined> {
    const [row] = await this.db
      .update(users)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning();
    return row;
  }

  async countByRole(role: PlatformRole, opts: { activeOnly?: boolean; excludeId?: string } = {}): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(users)
      .where(
        and(
          eq(users.platformRole, role),
          opts.activeOnly ? eq(users.status, 'active') : undefined,
          opts.excludeId ? ne(users.id, opts.excludeId) : undefined,
        ),
      );
    return Number(row?.n ?? 0);
  }

  async memberships(userId: string): Promise<MembershipRecord[]> {
    return this.db
      .select({ orgId: orgMemberships.orgId, orgRole: orgMemberships.orgRole })
      .from(orgMemberships)
      .where(eq(orgMemberships.userId, userId))
      .orderBy(asc(orgMemberships.createdAt));
  }

  async upsertMembership(orgId: string, userId: string, orgRole: OrgRole): Promise<void> {
    await this.db
      .insert(orgMemberships)
      .values({ orgId, userId, orgRole })
      .onConflictDoUpdate({ target: [orgMemberships.orgId, orgMemberships.userId], set: { orgRole } });
  }

  async membersOf(orgIds: string[]): Promise<Array<MembershipRecord & { userId: string }>> {
    if (orgIds.length === 0) return [];
    return this.db
      .select({ orgId: orgMemberships.orgId, orgRole: orgMemberships.orgRole, userId: orgMemberships.userId })
      .from(orgMemberships)
      .where(inArray(orgMemberships.orgId, orgIds));
  }
}
