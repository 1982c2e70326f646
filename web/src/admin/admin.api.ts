import type {
  AdminUser,
  AdminUserDetail,
  AuditItem,
  ImpersonationSession,
  ImpersonationStopped,
  InviteMemberInput,
  Member,
  MemberInvitation,
  OrgRole,
  PlatformRole,
  UpdateUserInput,
} from '@contracts';
import { apiFetch } from '../api/client';

export interface PageOf<T> {
  items: T[];
  nextCursor: string | null;
}

export interface AuditFilter {
  action?: string;
  actorId?: string;
  resourceId?: string;
}

const user = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

/** SuperAdmin user administration, the audit log and impersonation (spec 4.7, 5.8, 6.3). */
export const adminApi = {
  listUsers: (query: { role?: PlatformRole; q?: string; limit?: number; cursor?: string }, signal?: AbortSignal) =>
    apiFetch<PageOf<AdminUser>>('/admin/users', { query, signal }),
  user: (id: string, signal?: AbortSignal) => apiFetch<AdminUserDetail>(user(id), { signal }),
  activity: (id: string, cursor: string | undefined, signal?: AbortSignal) =>
    apiFetch<PageOf<AuditItem>>(`${user(id)}/activity`, { query: { limit: 25, cursor }, signal }),
  updateUser: (id: string, body: UpdateUserInput) => apiFetch<AdminUserDetail>(user(id), { method: 'PATCH', body }),
  sendPasswordReset: (id: string) => apiFetch<void>(`${user(id)}/password-reset`, { method: 'POST' }),

  audit: (filter: AuditFilter, cursor: string | undefined, signal?: AbortSignal) =>
    apiFetch<PageOf<AuditItem>>('/ops/audit', { query: { ...filter, limit: 50, cursor }, signal }),

  impersonate: (id: string, reason: string) =>
    apiFetch<{ token: string; impersonation: ImpersonationSession }>(`/admin/impersonate/${encodeURIComponent(id)}`, { method: 'POST', body: { reason } }),
  stopImpersonation: (impersonationId?: string) =>
    apiFetch<ImpersonationStopped>('/admin/impersonate/stop', { method: 'POST', body: impersonationId ? { impersonationId } : {} }),
  impersonations: (active: boolean | undefined, cursor: string | undefined, signal?: AbortSignal) =>
    apiFetch<PageOf<ImpersonationSession>>('/ops/impersonation', { query: { active: active === undefined ? undefined : String(active), limit: 50, cursor }, signal }),
};

/** Org members (spec 4.6): the caller's org, or `orgId` of one of theirs. */
export const membersApi = {
  /** Oldest membership first, 50 a page. */
  list: (orgId: string | undefined, cursor: string | undefined, signal?: AbortSignal) => apiFetch<PageOf<Member>>('/admin/members', { query: { orgId, limit: 50, cursor }, signal }),
  invite: (body: InviteMemberInput) => apiFetch<Member>('/admin/members/invite', { method: 'POST', body }),
  setRole: (userId: string, orgRole: OrgRole, orgId: string) =>
    apiFetch<Member>(`/admin/members/${encodeURIComponent(userId)}/role`, { method: 'PATCH', body: { orgRole, orgId } }),
  remove: (orgId: string, userId: string) =>
    apiFetch<void>(`/orgs/${encodeURIComponent(orgId)}/members/${encodeURIComponent(userId)}`, { method: 'DELETE' }),
  transferOwnership: (orgId: string, userId: string) =>
    apiFetch<PageOf<Member>>(`/orgs/${encodeURIComponent(orgId)}/transfer-ownership`, { method: 'POST', body: { userId } }),
  /** A mailed invitation, as its user sees it before accepting. */
  invitation: (token: string, signal?: AbortSignal) => apiFetch<MemberInvitation>(`/admin/members/invitations/${encodeURIComponent(token)}`, { signal }),
  acceptInvitation: (token: string) => apiFetch<Member>(`/admin/members/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST' }),
};

export const adminKeys = {
  users: ['admin', 'users'] as const,
  userList: (filter: { role?: PlatformRole; q?: string }) => ['admin', 'users', 'list', filter] as const,
  user: (id: string) => ['admin', 'users', id] as const,
  activity: (id: string) => ['admin', 'users', id, 'activity'] as const,
  audit: (filter: AuditFilter) => ['admin', 'audit', filter] as const,
  impersonations: (active: boolean | undefined) => ['admin', 'impersonations', active ?? 'all'] as const,
  members: (orgId: string | undefined) => ['members', orgId ?? 'mine'] as const,
  invitation: (token: string) => ['members', 'invitation', token] as const,
};
