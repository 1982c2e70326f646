import type {
  AdminUser,
  AdminUserDetail,
  AuditItem,
  ImpersonationSession,
  ImpersonationStarted,
  ImpersonationStopped,
  InviteMemberInput,
  Member,
  MemberInvitation,
  OrgRole,
  PageOf,
  PlatformRole,
  SpecialistDto,
  UpdateSpecialistInput,
  UpdateUserInput,
  UserStatus,
} from '@contracts';
import { apiFetch } from '../api/client';

/** The filters of `/ops/audit` as the API takes them (`from` / `to` as instants or UTC days). */
export type AuditFilter = {
  action?: string;
  userId?: string;
  orgId?: string;
  from?: string;
  to?: string;
};

export type UserListFilter = {
  role?: PlatformRole;
  status?: UserStatus;
  q?: string;
};

/** A page of a list read one page at a time (`cursor` in the page's address). */
export const USERS_PAGE_SIZE = 25;

/** A Specialist as the catalog form sends it (POST creates, PATCH sends only what changed). */
export type SpecialistInput = UpdateSpecialistInput;

const user = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

/** SuperAdmin user administration, the audit log and impersonation (spec 4.7, 5.8, 6.3). */
export const adminApi = {
  listUsers: (query: UserListFilter & { limit?: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<AdminUser>>('/admin/users', { query, signal }),
  user: (id: string, signal?: AbortSignal) => apiFetch<AdminUserDetail>(user(id), { signal }),
  activity: (id: string, cursor: string | undefined, signal?: AbortSignal) => apiFetch<PageOf<AuditItem>>(`${user(id)}/activity`, { query: { limit: 25, cursor }, signal }),
  updateUser: (id: string, body: UpdateUserInput) => apiFetch<AdminUserDetail>(user(id), { method: 'PATCH', body }),
  setRole: (id: string, platformRole: UpdateUserInput['platformRole'] & string) => apiFetch<AdminUserDetail>(`${user(id)}/role`, { method: 'PATCH', body: { platformRole } }),
  sendPasswordReset: (id: string) => apiFetch<void>(`${user(id)}/password-reset`, { method: 'POST' }),

  audit: (filter: AuditFilter, cursor: string | undefined, signal?: AbortSignal) => apiFetch<PageOf<AuditItem>>('/ops/audit', { query: { ...filter, limit: 50, cursor }, signal }),

  impersonate: (id: string, reason: string) => apiFetch<ImpersonationStarted>(`/admin/impersonate/${encodeURIComponent(id)}`, { method: 'POST', body: { reason } }),
  stopImpersonation: (impersonationId?: string) => apiFetch<ImpersonationStopped>('/admin/impersonate/stop', { method: 'POST', body: impersonationId ? { impersonationId } : {} }),
  specialists: (q: string | undefined, cursor: string | undefined, signal?: AbortSignal) => apiFetch<PageOf<SpecialistDto>>('/specialists', { query: { q, limit: 50, cursor }, signal }),
  createSpecialist: (body: SpecialistInput) => apiFetch<SpecialistDto>('/specialists', { method: 'POST', body }),
  updateSpecialist: (id: string, body: SpecialistInput) => apiFetch<SpecialistDto>(`/specialists/${encodeURIComponent(id)}`, { method: 'PATCH', body }),

  impersonations: (active: boolean | undefined, cursor: string | undefined, signal?: AbortSignal) =>
    apiFetch<PageOf<ImpersonationSession>>('/ops/impersonation', { query: { active: active === undefined ? undefined : String(active), limit: 50, cursor }, signal }),
};

/** Org members (spec 4.6): the caller's org, or `orgId` of one of theirs. */
export const membersApi = {
  /** Oldest membership first, 50 a page. */
  list: (orgId: string | undefined, cursor: string | undefined, signal?: AbortSignal) => apiFetch<PageOf<Member>>('/admin/members', { query: { orgId, limit: 50, cursor }, signal }),
  invite: (body: InviteMemberInput) => apiFetch<Member>('/admin/members/invite', { method: 'POST', body }),
  setRole: (userId: string, orgRole: OrgRole, orgId: string) => apiFetch<Member>(`/admin/members/${encodeURIComponent(userId)}/role`, { method: 'PATCH', body: { orgRole, orgId } }),
  remove: (orgId: string, userId: string) => apiFetch<void>(`/orgs/${encodeURIComponent(orgId)}/members/${encodeURIComponent(userId)}`, { method: 'DELETE' }),
  transferOwnership: (orgId: string, userId: string) => apiFetch<PageOf<Member>>(`/orgs/${encodeURIComponent(orgId)}/transfer-ownership`, { method: 'POST', body: { userId } }),
  /** A mailed invitation, as its user sees it before accepting. */
  invitation: (token: string, signal?: AbortSignal) => apiFetch<MemberInvitation>(`/admin/members/invitations/${encodeURIComponent(token)}`, { signal }),
  acceptInvitation: (token: string) => apiFetch<Member>(`/admin/members/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST' }),
};

export const adminKeys = {
  users: ['admin', 'users'] as const,
  userList: (filter: UserListFilter, cursor?: string) => ['admin', 'users', 'list', filter, cursor ?? 'first'] as const,
  user: (id: string) => ['admin', 'users', id] as const,
  activity: (id: string) => ['admin', 'users', id, 'activity'] as const,
  audit: (filter: AuditFilter) => ['admin', 'audit', filter] as const,
  specialists: ['admin', 'specialists'] as const,
  specialistList: (q: string | undefined) => ['admin', 'specialists', q ?? ''] as const,
  impersonations: (active: boolean | undefined) => ['admin', 'impersonations', active ?? 'all'] as const,
  members: (orgId: string | undefined) => ['members', orgId ?? 'mine'] as const,
  invitation: (token: string) => ['members', 'invitation', token] as const,
};
