import { SignJWT, importPKCS8 } from 'jose';
import pg from 'pg';

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
export async function createUsersWithTokens(
  databaseUrl: string,
  privateKeyPem: string,
  count: number,
  emailPrefix: string,
): Promise<BenchUser[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let rows: { id: string; email: string; name: string; pwc_ms: string }[];
  try {
    const result = await client.query(
      `insert into users (email, name, platform_role, status)
       select lower($1 || g || '@bench.invalid'), 'Bench user ' || g, 'org_member', 'active'
       from generate_series(1, $2::int) g
       returning id, email, name, (extract(epoch from password_changed_at) * 1000)::bigint::text as pwc_ms`,
      [emailPrefix, count],
    );
    rows = result.rows;
  } finally {
    await client.end().catch(() => undefined);
  }
  const privateKey = await importPKCS8(privateKeyPem, 'RS256');
  const latestChange = Math.max(0, ...rows.map((r) => Number(r.pwc_ms)));
  const now = Math.max(Date.now(), latestChange + 1);
  const iat = Math.floor(now / 1000);
  const users: BenchUser[] = [];
  for (const row of rows) {
    const token = await new SignJWT({ email: row.email, name: row.name, platformRole: 'org_member', orgMemberships: [], pwv: now })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(row.id)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + LIFETIME_S)
      .sign(privateKey);
    users.push({ id: row.id, email: row.email, name: row.name, token });
  }
  return users;
}
