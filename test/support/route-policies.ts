import { multipartFile, png } from './images.js';
import { TENANT_REFS, type Ref, type Role, type RouteFixtures } from './route-fixtures.js';

/**
 * Who may call each route of the OpenAPI document, and what a valid request to it names. The
 * isolation matrix walks this table with every role and with another org's callers, and fails
 * when a route of the document has no entry here: a new route must say who may call it.
 */
export interface RoutePolicy {
  /** 'public': no user token needed (spec 5.2); else the roles of org A that get past authorization on org A's rows. */
  access: 'public' | readonly Role[];
  /** The row each path parameter names (orgId, assignmentId... have defaults below; `id` never does). */
  params?: Record<string, Ref>;
  /** Query and body of a valid request. */
  query?: (f: RouteFixtures) => Record<string, string>;
  body?: (f: RouteFixtures) => unknown;
  /** A body that is not JSON (a multipart upload), sent as given instead of `body`. */
  upload?: (f: RouteFixtures) => { contentType: string; payload: Buffer };
  /** Statuses an admitted caller may get besides 2xx: a state rule refusing this particular request (409), a wrong code (400). */
  refusedByState?: readonly number[];
  /** The request ends the caller's session (sign out): every call of it sends a token of a new session of its own (`f.freshToken`). */
  endsSession?: true;
}

const ALL: readonly Role[] = ['superadmin', 'account_manager', 'expert', 'ai_operator', 'owner', 'admin', 'member', 'billing'];
/** Staff that act on every org (API-MAP.md "Conventions"). */
const ORG_WIDE: readonly Role[] = ['superadmin', 'account_manager', 'ai_operator'];
const AM: readonly Role[] = ['superadmin', 'account_manager'];
const SA: readonly Role[] = ['superadmin'];
const CLIENTS: readonly Role[] = ['owner', 'admin', 'member', 'billing'];
/** Spec 5.1: billing settings. */
const BILLING: readonly Role[] = ['owner', 'admin', 'billing'];
/** Integrations, channels and tool permissions: the org's owners and admins, and staff acting on every org. */
const MANAGERS: readonly Role[] = [...ORG_WIDE, 'owner', 'admin'];
/** Client briefs and tool permissions are edited by the org's owners and admins, account managers and superadmins. */
const ORG_EDITORS: readonly Role[] = ['superadmin', 'account_manager', 'owner', 'admin'];
/** Conversation writes: everyone but ai_operator, which reads only (API-MAP "Sessions, sockets and hardening"). */
const WRITERS: readonly Role[] = ALL.filter((role) => role !== 'ai_operator');
/** Corrections, assignment and status (spec 5.1): Experts, account managers, superadmins. */
const EXPERT_WORK: readonly Role[] = ['superadmin', 'account_manager', 'expert'];
const PUBLIC = { access: 'public' } as const;

/** What a path parameter names when the policy does not say. */
export const DEFAULT_PARAMS: Record<string, Ref> = {
  orgId: 'org',
  assignmentId: 'assignment',
  specialistId: 'spareSpecialist',
  messageId: 'reply',
  invoiceId: 'invoice',
  grantId: 'grant',
  userId: 'memberVictim',
  toolName: 'toolName',
  token: 'inviteToken',
};

const orgQuery = (f: RouteFixtures) => ({ orgId: f.acmeId });

/** The bearer token a caller sends on a route: its fixture token, or one of a new session when the route ends it. */
export async function callerToken(f: RouteFixtures, op: { key: string }, who: keyof RouteFixtures['tokens']): Promise<string> {
  return POLICIES[op.key]?.endsSession ? f.freshToken(who) : f.tokens[who];
}

export const POLICIES: Record<string, RoutePolicy> = {
  // Operations, documentation and the development outbox.
  'GET /api/health': PUBLIC,
  'GET /api/ready': PUBLIC,
  'GET /api/metrics': PUBLIC,
  'GET /api/docs': PUBLIC,
  'GET /api/openapi.json': PUBLIC,
  'GET /api/dev/mail': PUBLIC,
  'GET /api/ops/audit': { access: SA, query: orgQuery },

  // Signing in (public) and the caller's own account.
  'POST /api/auth/login': { ...PUBLIC, body: () => ({ email: 'nobody@example.com', password: 'wrong-password' }) },
  'POST /api/auth/request-otp': { ...PUBLIC, body: () => ({ email: 'nobody@example.com' }) },
  'POST /api/auth/verify-otp': { ...PUBLIC, body: () => ({ email: 'nobody@example.com', code: '000000' }) },
  'POST /api/auth/reset-password': { ...PUBLIC, body: () => ({ email: 'nobody@example.com', code: '000000', password: 'a-new-password' }) },
  'POST /api/bootstrap': { ...PUBLIC, body: () => ({ email: 'root@example.com', password: 'a-root-password', name: 'Root' }) },
  'POST /api/auth/demo-login': { ...PUBLIC, body: () => ({ role: 'client', orgSlug: 'no-such-org' }) },
  'GET /api/auth/demo-accounts': PUBLIC,
  'POST /api/auth/logout': { access: ALL, body: () => ({}), endsSession: true },
  // A wrong current password (400): a right one would end the fixture's sessions.
  'POST /api/auth/me/password': { access: ALL, body: () => ({ currentPassword: 'not-the-password', password: 'a-matrix-password' }), refusedByState: [400] },
  'GET /api/auth/me': { access: ALL },
  'PATCH /api/auth/me': { access: ALL, body: () => ({ name: 'Matrix Caller' }) },
  'GET /api/auth/2fa': { access: ALL },
  'POST /api/auth/2fa/setup': { access: ALL },
  'POST /api/auth/2fa/verify': { access: ALL, body: () => ({ code: '000000' }), refusedByState: [400] },
  'POST /api/auth/2fa/disable': { access: ALL, body: () => ({ totpCode: '000000' }), refusedByState: [409] },
  'POST /api/auth/2fa/recovery-codes': { access: ALL, body: () => ({ totpCode: '000000' }), refusedByState: [409] },

  // The AM wizard (spec 4.2).
  'GET /api/am/profile': { access: AM },
  'PATCH /api/am/profile': { access: AM, body: () => ({ name: 'Matrix Account Manager' }) },
  'GET /api/am/industries': { access: AM },
  'GET /api/am/workspace': { access: AM },
  'GET /api/am/slug-availability': { access: AM, query: () => ({ slug: 'acme' }) },
  'POST /api/am/orgs': {
    access: AM,
    body: (f) => {
      const slug = f.unique('matrix');
      return {
        legalName: 'Matrix Org',
        slug,
        industry: 'technology',
        corporateDomains: [`${slug}.example.com`],
        adminEmail: `admin@${slug}.example.com`,
        website: `https://${slug}.example.com`,
        timezone: 'UTC',
      };
    },
  },
  'GET /api/am/orgs': { access: AM },
  'GET /api/am/orgs/{orgId}': { access: AM },
  'PATCH /api/am/orgs/{orgId}': { access: AM, body: () => ({ companySize: '51-200' }) },
  'POST /api/am/orgs/{orgId}/slug-aliases': { access: SA, body: (f) => ({ slug: f.unique('alias') }) },
  'GET /api/am/orgs/{orgId}/phase0-status': { access: AM },
  // Org A is active: finishing or inviting again is refused by its state.
  'POST /api/am/orgs/{orgId}/finish': { access: AM, refusedByState: [409] },
  'POST /api/am/orgs/{orgId}/invite': { access: AM, body: () => ({}), refusedByState: [409] },
  'GET /api/am/orgs/{orgId}/onboarding-link': { access: AM },
  'GET /api/orgs/{orgId}': { access: [...ORG_WIDE, ...CLIENTS] },
  // The logo (spec 2.1): read like the org, edited by the wizard's staff and the org's owners and admins.
  'GET /api/orgs/{orgId}/logo': { access: [...ORG_WIDE, ...CLIENTS] },
  'PUT /api/orgs/{orgId}/logo': { access: ORG_EDITORS, upload: () => multipartFile('file', 'logo.png', 'image/png', png(3, 3)) },
  'DELETE /api/orgs/{orgId}/logo': { access: ORG_EDITORS },

  // The catalog and assignments.
  'GET /api/specialists': { access: ORG_WIDE },
  'GET /api/am/specialists': { access: AM },
  'GET /api/specialists/{id}': { access: ORG_WIDE, params: { id: 'catalogSpecialist' } },
  'POST /api/specialists': {
    access: SA,
    body: (f) => ({ name: 'Matrix Persona', slug: f.unique('persona'), monthly_rate_config: { base_rate: 1000, currency: 'USD' } }),
  },
  'PATCH /api/specialists/{id}': { access: SA, params: { id: 'catalogSpecialist' }, body: () => ({ skillTags: ['marketing'] }) },
  'GET /api/am/orgs/{orgId}/specialist-assignments': { access: AM },
  'POST /api/am/orgs/{orgId}/specialist': { access: AM, body: (f) => ({ specialistId: f.specialists.free }), refusedByState: [409] },
  'GET /api/am/orgs/{orgId}/specialist-assignments/{assignmentId}': { access: AM },
  'PATCH /api/am/orgs/{orgId}/specialist-assignments/{assignmentId}': { access: AM, body: () => ({ monthlyRate: 1300, overrideReason: 'matrix' }) },
  'DELETE /api/am/orgs/{orgId}/specialist/{specialistId}': { access: AM },
  // Mailbox actions depend on the mailbox's state (spec 7.2).
  'POST /api/am/orgs/{orgId}/specialist-assignments/{assignmentId}/provision': { access: AM, refusedByState: [409] },
  'POST /api/am/orgs/{orgId}/specialist-assignments/{assignmentId}/suspend': { access: AM, refusedByState: [409] },
  'POST /api/am/orgs/{orgId}/specialist-assignments/{assignmentId}/restore': { access: AM, refusedByState: [409] },
  'GET /api/client/specialists': { access: CLIENTS, query: orgQuery },
  'GET /api/client/trial-info': { access: CLIENTS, query: orgQuery },

  // Expert coverage.
  'GET /api/am/experts/list': { access: AM },
  'GET /api/am/orgs/{orgId}/expert-grants': { access: AM },
  'GET /api/am/orgs/{orgId}/specialist-coverage': { access: AM },
  'POST /api/am/orgs/{orgId}/expert-grants': { access: AM, body: (f) => ({ expertId: f.users.expert3, scope: 'specialist', specialistIds: [f.specialists.primary] }), refusedByState: [409] },
  'DELETE /api/am/orgs/{orgId}/expert-grants/{grantId}': { access: AM },

  // Onboarding (public with the invite token; completing needs the invited admin's session).
  'POST /api/auth/send-invite-otp': { ...PUBLIC, body: (f) => ({ token: f.refs.inviteToken }) },
  'POST /api/auth/verify-invite-otp': { ...PUBLIC, body: (f) => ({ token: f.refs.inviteToken, code: '000000' }) },
  'GET /api/onboarding/{token}': PUBLIC,
  'GET /api/onboarding/{token}/specialist': PUBLIC,
  'GET /api/onboarding/{token}/subdomain-availability': { access: 'public', query: () => ({ slug: 'free-subdomain' }) },
  'GET /api/onboarding/{token}/specialists': PUBLIC,
  'POST /api/onboarding/{token}/complete': {
    access: [],
    body: (f) => ({ legalName: 'Initech', slug: f.unique('initech'), password: 'a-good-password', name: 'Bill', specialistId: f.specialists.free }),
  },

  // Client briefs, and the renamed paths that redirect to them (spec 9.2).
  'GET /api/client-briefs': { access: ALL, query: orgQuery },
  'POST /api/client-briefs': { access: ORG_EDITORS, body: (f) => ({ orgId: f.acmeId, title: 'Matrix brief', content: 'Written by the matrix.' }) },
  'GET /api/client-briefs/{id}': { access: ALL, params: { id: 'brief' } },
  'PATCH /api/client-briefs/{id}': { access: ORG_EDITORS, params: { id: 'brief' }, body: () => ({ content: 'Edited by the matrix.' }) },
  'DELETE /api/client-briefs/{id}': { access: ORG_EDITORS, params: { id: 'brief' } },
  ...Object.fromEntries(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].flatMap((m) => [
      [`${m} /api/environment-profiles`, PUBLIC],
      [`${m} /api/environment-profiles/*`, PUBLIC],
    ]),
  ),

  // Agent tools.
  'GET /api/v1/agent-api/tools': { access: ALL },
  'GET /api/v1/agent-api/tools/{toolName}': { access: ALL },
  'GET /api/orgs/{orgId}/tool-permissions': { access: MANAGERS },
  'PUT /api/orgs/{orgId}/tool-permissions/{toolName}': { access: ORG_EDITORS, body: () => ({ enabled: true }) },

  // Conversations (spec 4.4): every user of the thread; Expert work for some.
  'POST /api/conversations': { access: WRITERS, body: (f) => ({ orgId: f.acmeId, message: 'A question from the matrix' }) },
  'GET /api/conversations': { access: ALL, query: orgQuery },
  'GET /api/conversations/search': { access: ALL, query: (f) => ({ q: f.marker, orgId: f.acmeId }) },
  'GET /api/conversations/{id}': { access: ALL, params: { id: 'conversation' } },
  'POST /api/conversations/{id}/messages': { access: WRITERS, params: { id: 'conversation' }, body: () => ({ content: 'One more thing' }) },
  'POST /api/conversations/{id}/messages/stream': { access: WRITERS, params: { id: 'conversation' }, body: () => ({ content: 'And streamed' }) },
  'PATCH /api/conversations/{id}/messages/{messageId}': { access: EXPERT_WORK, params: { id: 'conversation' }, body: () => ({ content: 'Corrected by the matrix' }) },
  'GET /api/conversations/{id}/messages/{messageId}/revisions': { access: EXPERT_WORK, params: { id: 'conversation' } },
  'POST /api/conversations/{id}/escalate': { access: WRITERS, params: { id: 'conversation' }, body: () => ({}) },
  'PATCH /api/conversations/{id}/status': { access: EXPERT_WORK, params: { id: 'conversation' }, body: () => ({ status: 'pending' }), refusedByState: [409] },
  'PATCH /api/conversations/{id}/resolve': { access: WRITERS, params: { id: 'conversation' }, refusedByState: [409] },
  'PATCH /api/conversations/{id}/archive': { access: WRITERS, params: { id: 'conversation' }, refusedByState: [409] },
  'PATCH /api/conversations/{id}/reopen': { access: WRITERS, params: { id: 'conversation' }, refusedByState: [409] },
  'PATCH /api/conversations/{id}/unarchive': { access: WRITERS, params: { id: 'conversation' }, refusedByState: [409] },
  'PATCH /api/conversations/{id}/dismiss': { access: CLIENTS, params: { id: 'conversation' }, refusedByState: [409] },
  'PATCH /api/conversations/{id}/assign': { access: EXPERT_WORK, params: { id: 'conversation' }, body: (f) => ({ expertId: f.users.expert }) },
  // A signed download link is its own credential (an <img> sends no token): public, refused without a valid signature.
  'GET /api/orgs/{orgId}/conversations/{conversationId}/artifacts/{artifactId}': { ...PUBLIC, params: { conversationId: 'conversation', artifactId: 'artifact' } },
  'GET /api/expert-queue': { access: EXPERT_WORK, query: orgQuery },
  'GET /api/expert-queue/filters': { access: EXPERT_WORK },
  'GET /api/orgs/{orgId}/quota': { access: ALL },

  // Notifications: the caller's own (another user's answers 403, spec 7.2).
  'POST /api/notifications': { access: ORG_WIDE, body: (f) => ({ userId: f.users.owner, type: 'matrix.notice', message: 'From the matrix' }) },
  'GET /api/notifications': { access: ALL },
  'PATCH /api/notifications/{id}/read': { access: ['owner'], params: { id: 'notification' } },
  'PATCH /api/notifications/read-all': { access: ALL },

  // Channels: inbound webhooks are public and signed (spec 4.8, 5.6); integrations are the org's.
  'POST /api/channels/chat-a/events': PUBLIC,
  'POST /api/channels/email/inbound': PUBLIC,
  'POST /api/channels/email/forward/mime': PUBLIC,
  'POST /api/channels/messaging-a/inbound': PUBLIC,
  'POST /api/channels/messaging-b/webhook': PUBLIC,
  'POST /api/channels/enterprise-chat/webhook': PUBLIC,
  'POST /api/channels/enterprise-chat/messages': PUBLIC,
  'GET /api/orgs/{orgId}/integrations': { access: MANAGERS },
  'POST /api/orgs/{orgId}/integrations': { access: ORG_EDITORS, body: (f) => ({ channel: 'chat-a', externalId: f.unique('T') }), refusedByState: [409] },
  'GET /api/orgs/{orgId}/integrations/{id}': { access: MANAGERS, params: { id: 'integration' } },
  'PATCH /api/orgs/{orgId}/integrations/{id}': { access: ORG_EDITORS, params: { id: 'integration' }, body: () => ({ enabled: true }) },
  // Verifying a binding is staff work (API-MAP.md "Channel bindings and vendor traffic").
  'POST /api/orgs/{orgId}/integrations/{id}/verify': { access: AM, params: { id: 'integration' } },
  'DELETE /api/orgs/{orgId}/integrations/{id}': { access: ORG_EDITORS, params: { id: 'integration' } },
  'GET /api/orgs/{orgId}/channels/status': { access: MANAGERS },
  'GET /api/orgs/{orgId}/channels/webhook-urls': { access: MANAGERS },
  'GET /api/ops/channels/quarantine': { access: ORG_WIDE, query: orgQuery },

  // Billing (spec 5.1, 8.1).
  'POST /api/billing/provider/webhook': PUBLIC,
  'POST /api/billing/stripe/webhook': PUBLIC,
  'GET /api/orgs/{orgId}/billing': { access: BILLING },
  'PATCH /api/orgs/{orgId}/billing': { access: BILLING, body: () => ({ billingEmail: 'ap@acme.example.com' }) },
  'POST /api/orgs/{orgId}/billing/payment-method': { access: BILLING, body: () => ({ kind: 'card', label: 'Visa 4242' }) },
  'GET /api/orgs/{orgId}/invoices': { access: BILLING },
  'GET /api/client/billing/checkout-url': { access: BILLING, query: orgQuery },
  'GET /api/ops/billing/orgs': { access: AM },
  'GET /api/ops/billing/orgs/{orgId}': { access: SA },
  'GET /api/ops/billing/costs': { access: SA },
  'POST /api/ops/billing/invoices/run': { access: SA, body: () => ({ period: '2020-01' }) },
  'POST /api/ops/billing/invoices/{invoiceId}/payments': { access: SA, body: () => ({ outcome: 'paid' }) },
  'GET /api/ops/analytics/expert-workload': { access: SA },
  'GET /api/ops/analytics/expert-leverage': { access: SA },

  // SuperAdmin user administration and impersonation (spec 4.7, 5.8).
  'GET /api/admin/users': { access: SA },
  'GET /api/admin/users/{id}': { access: SA, params: { id: 'adminTarget' } },
  'PATCH /api/admin/users/{id}': { access: SA, params: { id: 'adminTarget' }, body: () => ({ name: 'Matrix Target' }) },
  'DELETE /api/admin/users/{id}': { access: SA, params: { id: 'adminTarget' } },
  'GET /api/admin/users/{id}/activity': { access: SA, params: { id: 'adminTarget' } },
  'PATCH /api/admin/users/{id}/role': { access: SA, params: { id: 'adminTarget' }, body: () => ({ platformRole: 'org_member' }) },
  'PATCH /api/admin/users/{id}/password': { access: SA, params: { id: 'adminTarget' }, body: () => ({ password: 'a-matrix-password' }) },
  'POST /api/admin/users/{id}/password-reset': { access: SA, params: { id: 'adminTarget' } },
  // Any signed-in user may ask; only an impersonation session or a SuperAdmin has one to end.
  // From one's own session: the SuperAdmin's (an impersonation token stops its own session, walked in impersonation.e2e).
  'POST /api/admin/impersonate/stop': { access: SA, body: () => ({}) },
  'POST /api/admin/impersonate/{id}': { access: SA, params: { id: 'adminTarget' }, body: () => ({ reason: 'Matrix support check' }) },
  'GET /api/ops/impersonation': { access: SA },

  // Org members (spec 4.6).
  'GET /api/admin/members': { access: [...ORG_WIDE, ...CLIENTS], query: orgQuery },
  'POST /api/admin/members/invite': { access: ['superadmin', 'owner', 'admin'], body: (f) => ({ email: `${f.unique('invitee')}@acme.example.com`, orgRole: 'member', orgId: f.acmeId }) },
  // An invitation is for the user it was mailed to only (none of the matrix's callers): everyone else 404.
  'GET /api/admin/members/invitations/{token}': { access: [], params: { token: 'memberInvitation' } },
  'POST /api/admin/members/invitations/{token}/accept': { access: [], params: { token: 'memberInvitation' } },
  'PATCH /api/admin/members/{id}/role': { access: ['superadmin', 'owner', 'admin'], params: { id: 'memberVictim' }, body: (f) => ({ orgRole: 'member', orgId: f.acmeId }) },
  'DELETE /api/orgs/{orgId}/members/{userId}': { access: ['superadmin', 'owner', 'admin'] },
  // The owner naming itself is refused by the transfer rules; nobody else gets that far.
  'POST /api/orgs/{orgId}/transfer-ownership': { access: ['owner'], body: (f) => ({ userId: f.users.owner }), refusedByState: [400, 409] },
};

export interface Operation {
  method: string;
  /** OpenAPI form: `/api/orgs/{orgId}`. */
  path: string;
  key: string;
  isPublic: boolean;
  queryNames: string[];
  /** JSON schema of the body, when the route declares one. */
  bodySchema?: JsonSchema;
}

export type JsonSchema = Record<string, unknown>;

interface OpenApiDocument {
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: Array<{ in: string; name: string }>; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

/** Every operation of the OpenAPI document. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const m = method.toUpperCase();
      out.push({
        method: m,
        path,
        key: `${m} ${path}`,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
        queryNames: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

/** The rows a path parameter of an operation names, from its policy or the defaults. */
export function paramRefs(op: Operation, policy: RoutePolicy): Record<string, Ref> {
  const refs: Record<string, Ref> = {};
  for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
    const ref = policy.params?.[name!] ?? DEFAULT_PARAMS[name!];
    if (!ref) throw new Error(`${op.key}: the policy does not say what {${name}} names`);
    refs[name!] = ref;
  }
  return refs;
}

/** The concrete path of an operation with the given values for its parameters (`*` becomes a sub-path). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!)).replace(/\*$/, 'sub/path');
}

/** Whether a request names org A's rows: then org B's callers must be refused. */
export function namesTenant(refs: Record<string, Ref>, query: unknown, body: unknown, f: RouteFixtures): boolean {
  if (Object.values(refs).some((r) => (TENANT_REFS as readonly string[]).includes(r))) return true;
  const text = JSON.stringify([query ?? null, body ?? null]);
  return f.orgASecrets.some((id) => text.includes(id));
}
