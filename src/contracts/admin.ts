import { z } from 'zod';
import { EmailSchema, PasswordSchema } from './auth.js';
import { AssignablePlatformRoleSchema, OrgRoleSchema, PlatformRoleSchema, USER_STATUSES, UserStatusSchema, type PlatformRole } from './roles.js';

/** The refusals of spec 7.2, word for word: the server sends them, the web app shows them. */
export const ADMIN_MESSAGES = {
  emailInUse: 'Email already in use',
  ownRole: 'Cannot change your own SuperAdmin role',
  ownStatus: 'Cannot suspend or deactivate your own account',
  onlySuperadmin: 'Cannot demote the only remaining SuperAdmin',
  onlyActiveSuperadmin: 'Cannot suspend or deactivate the only remaining SuperAdmin',
  resetNonActive: 'Cannot send a password reset to a non-active user',
  impersonateSuperadmin: 'Cannot impersonate a Super Admin.',
} as const;

/** The statuses an edit may set (spec 3.5); any other stored value is shown read-only. */
export const EDITABLE_USER_STATUSES = USER_STATUSES;
export function isEditableStatus(status: string): status is (typeof USER_STATUSES)[number] {
  return (EDITABLE_USER_STATUSES as readonly string[]).includes(status);
}

/** A user as the SuperAdmin console lists it. `status` is a string: a legacy value is shown, not edited. */
export const AdminUserSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  platformRole: PlatformRoleSchema,
  status: z.string(),
  totpEnabled: z.boolean(),
  lastLoginAt: z.string().nullable(),
  passwordChangedAt: z.string(),
  removedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type AdminUser = z.infer<typeof AdminUserSchema>;

export const AdminUserDetailSchema = AdminUserSchema.extend({
  orgMemberships: z.array(z.object({ orgId: z.uuid(), orgRole: OrgRoleSchema, orgSlug: z.string().nullable(), orgName: z.string().nullable() })),
});
export type AdminUserDetail = z.infer<typeof AdminUserDetailSchema>;

/** `?limit=&cursor=` of a keyset-paginated list (API-MAP "Conventions"). */
const pageFields = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
};

export const AdminUsersQuerySchema = z.object({
  role: PlatformRoleSchema.optional(),
  status: UserStatusSchema.optional(),
  q: z.string().trim().max(200).optional(),
  ...pageFields,
});

const NameSchema = z.string().trim().max(200);

/**
 * PATCH /admin/users/:id (spec 4.7): only the changed fields among name, email, platformRole and
 * status; an empty name clears it; a password (or anything else) is refused.
 */
export const UpdateUserSchema = z
  .object({
    name: NameSchema.optional(),
    email: EmailSchema.optional(),
    platformRole: AssignablePlatformRoleSchema.optional(),
    status: UserStatusSchema.optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Send at least one changed field' });
export type UpdateUserInput = z.infer<typeof UpdateUserSchema>;

export const UpdateUserRoleSchema = z.object({ platformRole: AssignablePlatformRoleSchema }).strict();
export const SetUserPasswordSchema = z.object({ password: PasswordSchema }).strict();

/** Spec 4.7 rule 4: these edits end the target's sessions (and need a confirmation step); a name-only edit does not. */
export function revokesSessions(changes: { email?: string; platformRole?: PlatformRole; status?: string }): boolean {
  return changes.email !== undefined || changes.platformRole !== undefined || changes.status === 'suspended' || changes.status === 'deactivated';
}

/** What an id of an audit row names: a user, an org, a catalog Specialist, or an assignment (a Specialist at an org). */
export const AUDIT_REF_KINDS = ['user', 'org', 'specialist', 'assignment'] as const;
export const AuditRefSchema = z.object({
  kind: z.enum(AUDIT_REF_KINDS),
  /** The user's name (their email when they have none), the org's legal name, the Specialist's name. */
  name: z.string(),
  /** Users only. */
  email: z.string().optional(),
  /** Assignments only: the org the Specialist is assigned to. */
  orgId: z.uuid().optional(),
});
export type AuditRef = z.infer<typeof AuditRefSchema>;

export const AdminUserActivitySchema = z.object({
  id: z.uuid(),
  action: z.string(),
  userId: z.uuid().nullable(),
  resourceId: z.string().nullable(),
  orgId: z.uuid().nullable(),
  impersonatorId: z.uuid().nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  /**
   * The names behind the row's ids (actor, impersonator, org, target, and ids inside `meta`),
   * keyed by id; an id that names nothing known (a removed row, a conversation) is absent.
   */
  refs: z.record(z.string(), AuditRefSchema),
});
/** One audit row (spec 2.10): `userId` is the actor, `resourceId` the target. */
export type AuditItem = z.infer<typeof AdminUserActivitySchema>;
export const AuditItemSchema = AdminUserActivitySchema;

/** A day (`2026-05-01`, that whole UTC day) or an instant (ISO-8601 with its offset). */
const AuditTimeSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** GET /ops/audit: every filter is optional and they combine. */
export const AuditQuerySchema = z
  .object({
    actorId: z.uuid().optional().describe('Rows this user performed'),
    resourceId: z.string().max(200).optional().describe('Rows whose target is this id'),
    userId: z.uuid().optional().describe('Rows this user took part in: as the actor, the impersonating SuperAdmin, or the target'),
    orgId: z.uuid().optional().describe('Rows of this org'),
    action: z.string().max(200).optional(),
    from: AuditTimeSchema.optional().describe('From this day (UTC) or instant, included'),
    to: AuditTimeSchema.optional().describe('Until this day (UTC, the whole day included) or instant (excluded)'),
    ...pageFields,
  })
  .refine((q) => !q.from || !q.to || auditWindow(q).since! < auditWindow(q).until!, { path: ['to'], message: 'The end of the range is before its start' });
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** The `[since, until)` instants of a `from` / `to` pair (a bare `to` day runs to the next midnight UTC). */
export function auditWindow(q: { from?: string; to?: string }): { since?: Date; until?: Date } {
  const day = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);
  const since = q.from ? new Date(day(q.from) ? `${q.from}T00:00:00Z` : q.from) : undefined;
  let until: Date | undefined;
  if (q.to) {
    until = new Date(day(q.to) ? `${q.to}T00:00:00Z` : q.to);
    if (day(q.to)) until = new Date(until.getTime() + 86_400_000);
  }
  return { since, until };
}

// Impersonation (spec 5.8)

export const ImpersonateSchema = z.object({ reason: z.string().trim().min(1, 'A reason is required').max(500) }).strict();
export const StopImpersonationSchema = z.object({ impersonationId: z.uuid().optional() }).strict();

const UserRefSchema = z.object({ id: z.uuid(), email: z.string(), name: z.string() });
export const ImpersonationSessionSchema = z.object({
  id: z.uuid(),
  impersonator: UserRefSchema,
  target: UserRefSchema,
  reason: z.string(),
  startedAt: z.string(),
  expiresAt: z.string(),
  endedAt: z.string().nullable(),
  active: z.boolean(),
});
export type ImpersonationSession = z.infer<typeof ImpersonationSessionSchema>;
export const ImpersonationStartedSchema = z.object({ token: z.string(), impersonation: ImpersonationSessionSchema });
/** `token`: the SuperAdmin's own session given back (stop called with the impersonation token, that session still open). */
export const ImpersonationStoppedSchema = z.object({ ended: z.array(ImpersonationSessionSchema), token: z.string().optional() });
export type ImpersonationStopped = z.infer<typeof ImpersonationStoppedSchema>;
export const ImpersonationsQuerySchema = z.object({
  active: z.enum(['true', 'false']).optional(),
  ...pageFields,
});

// Org members (spec 4.6)

/** Roles an admin or owner may grant: up to Admin. Ownership moves only by transfer. */
export const GRANTABLE_ORG_ROLES = ['admin', 'member', 'billing'] as const;

export const MemberSchema = z.object({
  id: z.uuid(),
  userId: z.uuid(),
  email: z.string(),
  name: z.string(),
  platformRole: PlatformRoleSchema,
  status: z.string(),
  orgId: z.uuid(),
  orgRole: OrgRoleSchema,
  joinedAt: z.string(),
});
export type Member = z.infer<typeof MemberSchema>;

export const MembersQuerySchema = z.object({ orgId: z.uuid().optional(), ...pageFields });
export const InviteMemberSchema = z
  .object({
    email: EmailSchema,
    name: NameSchema.optional(),
    orgRole: OrgRoleSchema.default('member'),
    orgId: z.uuid().optional(),
  })
  .strict();
export type InviteMemberInput = z.infer<typeof InviteMemberSchema>;
export const UpdateMemberRoleSchema = z.object({ orgRole: OrgRoleSchema, orgId: z.uuid().optional() }).strict();

/** The token of a mailed member invitation (`/invitations/accept?token=`). */
export const InvitationTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/, 'Not an invitation token');
/** What the invited user sees before accepting. */
export const MemberInvitationSchema = z.object({
  orgId: z.uuid(),
  orgName: z.string(),
  orgRole: OrgRoleSchema,
  email: z.string(),
  expiresAt: z.string(),
});
export type MemberInvitation = z.infer<typeof MemberInvitationSchema>;
export const TransferOwnershipSchema = z.object({ userId: z.uuid() }).strict();

// The edit form of spec 4.7 (the web app's rules, here so they are tested once).

export interface UserEditDraft {
  name: string;
  email: string;
  platformRole: PlatformRole;
  status: string;
}

/** The request body of a draft: only what differs from the user, the status only when it is editable. */
export function draftChanges(user: UserEditDraft, draft: UserEditDraft): UpdateUserInput {
  const changes: UpdateUserInput = {};
  if (draft.name.trim() !== user.name) changes.name = draft.name.trim();
  const email = draft.email.trim().toLowerCase();
  if (email !== user.email) changes.email = email;
  if (draft.platformRole !== user.platformRole) changes.platformRole = draft.platformRole as UpdateUserInput['platformRole'];
  if (isEditableStatus(user.status) && draft.status !== user.status && isEditableStatus(draft.status)) changes.status = draft.status;
  return changes;
}

/** Rule 3: promoting someone to SuperAdmin needs their email typed exactly. */
export function promotesToSuperadmin(user: UserEditDraft, draft: UserEditDraft): boolean {
  return draft.platformRole === 'superadmin' && user.platformRole !== 'superadmin';
}

/** Rules 1 and 3: why Save is disabled, or null when it may be pressed. */
export function saveBlocker(user: UserEditDraft, draft: UserEditDraft, typedEmail: string): 'no_change' | 'invalid_email' | 'confirm_email' | null {
  if (!EmailSchema.safeParse(draft.email).success) return 'invalid_email';
  if (Object.keys(draftChanges(user, draft)).length === 0) return 'no_change';
  if (promotesToSuperadmin(user, draft) && typedEmail !== user.email) return 'confirm_email';
  return null;
}
export type ImpersonationStarted = z.infer<typeof ImpersonationStartedSchema>;
