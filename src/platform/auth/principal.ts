import type { OrgRole, PlatformRole, UserStatus } from '../../contracts/roles.js';

export interface PrincipalMembership {
  orgId: string;
  orgRole: OrgRole;
}

/** The verified caller of a request: the token checked, then the user's current row. */
export interface Principal {
  userId: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  orgMemberships: PrincipalMembership[];
  /** Milliseconds since epoch when the token was issued (the `pwv` claim). */
  issuedAtMs: number;
  /** The server-side session the token belongs to (the `sid` claim). */
  sessionId: string;
  impersonatorId?: string;
  impersonationId?: string;
  /** The user's row as read for this request (no second read needed to describe the caller). */
  record: PrincipalRecord;
  /**
   * The orgs whose access gate (spec 3.6) this request found open (set by the request guard), so
   * work the request does at once on one of them (the agent turn of a client's message) need not
   * read the gate again. Absent: the gate was not checked for this request.
   */
  openOrgIds?: ReadonlySet<string>;
}

/**
 * The `sessionId` of a principal the service makes up for its own work (seeding demo data), not
 * read from a token: no session has this id, so nothing can end or resume it.
 */
export const INTERNAL_SESSION_ID = '00000000-0000-0000-0000-000000000000';

/** The current state of a user as the auth layer needs it; filled by the users module. */
export interface PrincipalRecord {
  id: string;
  email: string;
  name: string;
  platformRole: PlatformRole;
  status: UserStatus;
  passwordChangedAt: Date;
  totpEnabled: boolean;
  createdAt: Date;
  orgMemberships: PrincipalMembership[];
}
