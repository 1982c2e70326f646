import type {
  AmProfile,
  AssignSpecialistInput,
  CoverageItem,
  CreateGrantInput,
  CreateOrgInput,
  ExpertSummary,
  GrantDto,
  IndustryOption,
  InviteResult,
  OnboardingLink,
  OrgDto,
  OrgListItem,
  OrgStatus,
  OsaDto,
  PageOf,
  Phase0Status,
  SlugAvailability,
  SpecialistDto,
  UpdateAssignmentInput,
  UpdateOrgInput,
  WorkspaceSettings,
} from '@contracts';
import { apiFetch, fetchAllPages, fetchItems } from '../api/client';

export type { CoverageItem, ExpertSummary };

/** The filters of the clients list (`GET /am/orgs`). */
export type OrgListFilter = {
  status?: OrgStatus;
  q?: string;
  assignedAmId?: string;
};

const org = (orgId: string) => `/am/orgs/${encodeURIComponent(orgId)}`;
const assignment = (orgId: string, assignmentId: string) => `${org(orgId)}/specialist-assignments/${encodeURIComponent(assignmentId)}`;

/** The account manager's endpoints (spec 4.2; API-MAP.md "AM wizard, Phase 1"). */
export const amApi = {
  industries: (signal?: AbortSignal) => fetchItems<IndustryOption>('/am/industries', { signal }),
  slugAvailability: (slug: string, orgId: string | undefined, signal?: AbortSignal) => apiFetch<SlugAvailability>('/am/slug-availability', { query: { slug, orgId }, signal }),
  /** WORKSPACE_DOMAIN as the server is configured: the domain of every workspace alias (spec 2.3.1). */
  workspace: (signal?: AbortSignal) => apiFetch<WorkspaceSettings>('/am/workspace', { signal }),
  profile: (signal?: AbortSignal) => apiFetch<AmProfile>('/am/profile', { signal }),
  updateProfile: (body: { name: string }) => apiFetch<AmProfile>('/am/profile', { method: 'PATCH', body }),

  listOrgs: (query: OrgListFilter & { limit?: number; cursor?: string }, signal?: AbortSignal) => apiFetch<PageOf<OrgListItem>>('/am/orgs', { query, signal }),
  getOrg: (orgId: string, signal?: AbortSignal) => apiFetch<OrgDto>(org(orgId), { signal }),
  createOrg: (body: CreateOrgInput) => apiFetch<OrgDto>('/am/orgs', { method: 'POST', body }),
  updateOrg: (orgId: string, body: UpdateOrgInput) => apiFetch<OrgDto>(org(orgId), { method: 'PATCH', body }),
  phase0Status: (orgId: string, signal?: AbortSignal) => apiFetch<Phase0Status>(`${org(orgId)}/phase0-status`, { signal }),
  finish: (orgId: string) => apiFetch<OrgDto>(`${org(orgId)}/finish`, { method: 'POST' }),
  /** sendOrgInvite; again while the client has not confirmed = resend (new 7-day window, same link). */
  sendInvite: (orgId: string, body: { trialEndDate?: string; startDate?: string }) => apiFetch<InviteResult>(`${org(orgId)}/invite`, { method: 'POST', body }),
  onboardingLink: (orgId: string, signal?: AbortSignal) => apiFetch<OnboardingLink>(`${org(orgId)}/onboarding-link`, { signal }),

  specialists: (signal?: AbortSignal) => fetchAllPages<SpecialistDto>('/am/specialists', { signal }),
  assignments: (orgId: string, signal?: AbortSignal) => fetchItems<OsaDto>(`${org(orgId)}/specialist-assignments`, { signal }),
  assignment: (orgId: string, assignmentId: string, signal?: AbortSignal) => apiFetch<OsaDto>(assignment(orgId, assignmentId), { signal }),
  assign: (orgId: string, body: AssignSpecialistInput) => apiFetch<OsaDto>(`${org(orgId)}/specialist`, { method: 'POST', body }),
  updateAssignment: (orgId: string, assignmentId: string, body: UpdateAssignmentInput) => apiFetch<OsaDto>(assignment(orgId, assignmentId), { method: 'PATCH', body }),
  unassign: (orgId: string, specialistId: string) => apiFetch<void>(`${org(orgId)}/specialist/${encodeURIComponent(specialistId)}`, { method: 'DELETE' }),
  mailboxAction: (orgId: string, assignmentId: string, action: 'provision' | 'suspend' | 'restore') => apiFetch<OsaDto>(`${assignment(orgId, assignmentId)}/${action}`, { method: 'POST' }),

  experts: (signal?: AbortSignal) => fetchAllPages<ExpertSummary>('/am/experts/list', { signal }),
  grants: (orgId: string, signal?: AbortSignal) => fetchItems<GrantDto>(`${org(orgId)}/expert-grants`, { signal }),
  coverage: (orgId: string, signal?: AbortSignal) => fetchItems<CoverageItem>(`${org(orgId)}/specialist-coverage`, { signal }),
  addGrant: (orgId: string, body: CreateGrantInput) => apiFetch<GrantDto>(`${org(orgId)}/expert-grants`, { method: 'POST', body }),
  removeGrant: (orgId: string, grantId: string) => apiFetch<void>(`${org(orgId)}/expert-grants/${encodeURIComponent(grantId)}`, { method: 'DELETE' }),
};

/** Query keys: everything of one org lives under `amKeys.org(id)`, so one invalidation refreshes it all. */
export const amKeys = {
  all: ['am'] as const,
  industries: ['am', 'industries'] as const,
  profile: ['am', 'profile'] as const,
  workspace: ['am', 'workspace'] as const,
  slug: (slug: string, orgId: string | undefined) => ['am', 'slug', slug, orgId ?? null] as const,
  orgList: (filter: OrgListFilter) => ['am', 'orgs', filter] as const,
  orgLists: ['am', 'orgs'] as const,
  org: (orgId: string) => ['am', 'org', orgId] as const,
  orgRecord: (orgId: string) => ['am', 'org', orgId, 'record'] as const,
  phase0: (orgId: string) => ['am', 'org', orgId, 'phase0'] as const,
  onboardingLink: (orgId: string) => ['am', 'org', orgId, 'onboarding-link'] as const,
  assignments: (orgId: string) => ['am', 'org', orgId, 'assignments'] as const,
  assignment: (orgId: string, assignmentId: string) => ['am', 'org', orgId, 'assignments', assignmentId] as const,
  grants: (orgId: string) => ['am', 'org', orgId, 'grants'] as const,
  coverage: (orgId: string) => ['am', 'org', orgId, 'coverage'] as const,
  specialists: ['am', 'specialists'] as const,
  experts: ['am', 'experts'] as const,
};
