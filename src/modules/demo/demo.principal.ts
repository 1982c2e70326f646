import { INTERNAL_SESSION_ID, type Principal } from '../../platform/auth/principal.js';
import { systemNow } from '../../platform/clock/clock.js';
import type { UsersService } from '../users/index.js';

/** A demo user acting through the services (the seed's own session, no sign-in). */
export async function demoPrincipal(users: UsersService, userId: string): Promise<Principal> {
  const record = (await users.load(userId))!;
  return {
    userId,
    email: record.email,
    name: record.name,
    platformRole: record.platformRole,
    orgMemberships: record.orgMemberships,
    issuedAtMs: systemNow().getTime(),
    sessionId: INTERNAL_SESSION_ID,
    record,
  };
}
