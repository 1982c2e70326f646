import { SignJWT, importPKCS8 } from 'jose';
import { withClient } from './pg.js';

/** The server's token issuer and lifetime (src/platform/auth/token.service.ts). */
const ISSUER = 'client-organization-service';
const LIFETIME_S = 7 * 24 * 60 * 60;

export interface BenchUser {
  id: string;
  email: string;
  name: string;
  token: string;
}

/**
 * Inserts `count` plain users (`org_member`, active, no org) into the bench database in one
 * statement, and mints each an RS256 token the server accepts, signed with the run's private key:
 * the claims of the server's TokenService, with `pwv` at or after the row's `password_changed_at`.
 */
export async function createUsersWithTokens(databaseUrl: string, privateKeyPem: string, count: number, emailPrefix: string): Promise<BenchUser[]> {
  const rows = await withClient(databaseUrl, async (client) => {
    const result = await client.query<{ id: string; email: string; name: string; pwc_ms: string }>(
      `insert into users (email, name, platform_role, status)
       select lower($1 || g || '@bench.invalid'), 'Bench user ' || g, 'org_member', 'active'
       from generate_series(1, $2::int) g
       returning id, email, name, (extract(epoch from password_changed_at) * 1000)::bigint::text as pwc_ms`,
      [emailPrefix, count],
    );
    return result.rows;
  });
  const tokens = await signUserTokens(
    databaseUrl,
    privateKeyPem,
    rows.map((row) => ({ ...row, platformRole: 'org_member', orgMemberships: [], passwordChangedAtMs: Number(row.pwc_ms) })),
  );
  return rows.map((row, i) => ({ id: row.id, email: row.email, name: row.name, token: tokens[i]! }));
}

/** What a token says about its user: the claims of the server's TokenService. */
export interface TokenUser {
  id: string;
  email: string;
  name: string;
  platformRole: string;
  orgMemberships: { orgId: string; orgRole: string }[];
  /** The row's `password_changed_at` in ms: `pwv` must not be earlier. */
  passwordChangedAtMs: number;
}

/**
 * RS256 tokens the server accepts, one per user, in order: each names a server-side session of its
 * user (`sid`), opened as the server's SessionsService opens one (a row of `auth_sessions`, expiring
 * with the token), in one statement for all users; then signed with the run's private key with the
 * claims of the server's TokenService (issuer, 7 days), `pwv` at or after every row's
 * `password_changed_at`.
 */
export async function signUserTokens(databaseUrl: string, privateKeyPem: string, users: TokenUser[]): Promise<string[]> {
  const privateKey = await importPKCS8(privateKeyPem, 'RS256');
  const latestChange = Math.max(0, ...users.map((u) => u.passwordChangedAtMs));
  const now = Math.max(Date.now(), latestChange + 1);
  const iat = Math.floor(now / 1000);
  const sessions = await openSessions(
    databaseUrl,
    users.map((u) => u.id),
    now,
    (iat + LIFETIME_S) * 1000,
  );
  const tokens: string[] = [];
  for (const user of users) {
    const claims = { email: user.email, name: user.name, platformRole: user.platformRole, orgMemberships: user.orgMemberships, pwv: now, sid: sessions.get(user.id)! };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + LIFETIME_S)
      .sign(privateKey);
    tokens.push(token);
  }
  return tokens;
}

/** One open session per user (the users are distinct), created at `createdMs`: user id -> session id. */
async function openSessions(databaseUrl: string, userIds: string[], createdMs: number, expiresMs: number): Promise<Map<string, string>> {
  if (new Set(userIds).size !== userIds.length) throw new Error('signUserTokens: one session per user, and a user named twice');
  const rows = await withClient(databaseUrl, async (client) => {
    const result = await client.query<{ id: string; user_id: string }>(
      `insert into auth_sessions (user_id, method, created_at, expires_at)
       select u, 'bench', to_timestamp($2::float8 / 1000), to_timestamp($3::float8 / 1000)
       from unnest($1::uuid[]) as t(u)
       returning id, user_id`,
      [userIds, createdMs, expiresMs],
    );
    return result.rows;
  });
  return new Map(rows.map((r) => [r.user_id, r.id]));
}
