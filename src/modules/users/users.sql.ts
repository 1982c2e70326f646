import { sql, type Column, type SQL } from 'drizzle-orm';
import type { PrincipalRecord } from '../../platform/auth/principal.js';
import { orgMemberships } from './memberships.tables.js';
import { users } from './users.tables.js';

/** A principal as its JSON travels (timestamps as text). */
export type PrincipalJson = Omit<PrincipalRecord, 'passwordChangedAt' | 'createdAt'> & { passwordChangedAt: string; createdAt: string };

/**
 * The current state of the user `userId` (status, password change, memberships) as a scalar JSON
 * subquery, null when there is no such user: the auth module reads it in the same statement as
 * the token's session, without reading this module's tables itself. Read it with `principalFromJson`.
 * User-keyed, so outside the tenancy rule: the caller's own memberships in every org are what the
 * org checks are made from (allowed in test/lint/tenant-scope.spec.ts).
 */
export function principalOf(userId: SQL): SQL<PrincipalJson | null> {
  // Qualified by alias: a column interpolated in raw SQL renders unqualified (ambiguous in the
  // memberships subquery, which has an id of its own).
  const u = (column: Column) => sql`u.${sql.identifier(column.name)}`;
  const m = (column: Column) => sql`m.${sql.identifier(column.name)}`;
  return sql<PrincipalJson | null>`(select json_build_object(
      'id', ${u(users.id)}, 'email', ${u(users.email)}, 'name', ${u(users.name)}, 'platformRole', ${u(users.platformRole)},
      'status', ${u(users.status)}, 'passwordChangedAt', ${u(users.passwordChangedAt)}, 'totpEnabled', ${u(users.totpEnabled)},
      'createdAt', ${u(users.createdAt)},
      'orgMemberships', coalesce((select json_agg(json_build_object('orgId', ${m(orgMemberships.orgId)}, 'orgRole', ${m(orgMemberships.orgRole)}) order by ${m(orgMemberships.createdAt)})
         from ${orgMemberships} m where ${m(orgMemberships.userId)} = ${u(users.id)}), '[]'::json))
    from ${users} u where ${u(users.id)} = ${userId})`;
}

/**
 * The ids of the orgs the user `userId` is a member of, as a `uuid[]` scalar subquery (the orgs
 * the access gate asks about for the caller's request, read in the caller's statement).
 */
export function memberOrgIdsOf(userId: SQL): SQL<string[]> {
  return sql<string[]>`array(select mo.${sql.identifier(orgMemberships.orgId.name)} from ${orgMemberships} mo where mo.${sql.identifier(orgMemberships.userId.name)} = ${userId})`;
}

export function principalFromJson(json: PrincipalJson): PrincipalRecord {
  return { ...json, passwordChangedAt: new Date(json.passwordChangedAt), createdAt: new Date(json.createdAt) };
}
