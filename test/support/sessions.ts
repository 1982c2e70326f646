import { eq } from 'drizzle-orm';
import { authSessions, type AuthSessionRow } from '../../src/modules/auth/auth.tables.js';
import type { TestApp } from './test-app.js';

/** The claims of a token, read without checking it. */
export const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;

/** The server-side session a token names (its `sid`), as stored. */
export async function sessionOf(app: TestApp, token: string): Promise<AuthSessionRow | undefined> {
  const sid = claimsOf(token).sid as string | undefined;
  if (!sid) return undefined;
  const [row] = await app.running.dbService.db.select().from(authSessions).where(eq(authSessions.id, sid));
  return row;
}
