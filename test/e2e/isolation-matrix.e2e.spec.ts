import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorShapeProblem } from '../support/error-shape.js';
import { rawRequest, type RawAnswer } from '../support/http.js';
import { OTHER_ORG_CALLERS, ROLES, UNAUTHENTICATED, routeFixtures, type OtherOrgCaller, type Role, type RouteFixtures } from '../support/route-fixtures.js';
import { POLICIES, callerToken, fillPath, namesTenant, operationsOf, paramRefs, type Operation, type RoutePolicy } from '../support/route-policies.js';
import { countChanges, rowCounter, type RowCounts } from '../support/row-counts.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The routes that need no user token (spec 5.2): exactly these, and every other route fails closed. */
const PUBLIC_ROUTES = [
  'GET /api/health',
  'GET /api/ready',
  'GET /api/metrics',
  'GET /api/docs',
  'GET /api/openapi.json',
  'GET /api/dev/mail',
  'POST /api/auth/login',
  'POST /api/auth/request-otp',
  'POST /api/auth/verify-otp',
  'POST /api/auth/reset-password',
  'POST /api/bootstrap',
  'POST /api/auth/demo-login',
  'GET /api/auth/demo-accounts',
  'POST /api/auth/send-invite-otp',
  'POST /api/auth/verify-invite-otp',
  'GET /api/onboarding/{token}',
  'GET /api/onboarding/{token}/specialist',
  'GET /api/onboarding/{token}/specialists',
  'GET /api/onboarding/{token}/subdomain-availability',
  'GET /api/orgs/{orgId}/conversations/{conversationId}/artifacts/{artifactId}',
  ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].flatMap((m) => [`${m} /api/environment-profiles`, `${m} /api/environment-profiles/*`]),
  'POST /api/channels/chat-a/events',
  'POST /api/channels/email/inbound',
  'POST /api/channels/email/forward/mime',
  'POST /api/channels/messaging-a/inbound',
  'POST /api/channels/messaging-b/webhook',
  'POST /api/channels/enterprise-chat/webhook',
  'POST /api/channels/enterprise-chat/messages',
  'POST /api/billing/provider/webhook',
  'POST /api/billing/stripe/webhook',
].sort();

const METHOD_ORDER: Record<string, number> = { GET: 0, OPTIONS: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };

interface Request {
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** A non-JSON body (a multipart upload), sent as given. */
  upload?: { contentType: string; payload: Buffer };
  tenant: boolean;
}

/**
 * The tenant isolation matrix (spec 5.2, 5.3; API-MAP.md "Conventions"; STYLE.md "Tenancy"),
 * generated from the OpenAPI document of the booted app: every route with every role of org A,
 * with org B's callers against org A's ids, and without a valid token.
 */
// Each test walks every route of the document for several roles: hundreds of requests, whose time
// grows with the route count and the machine's load. A slow machine is not a failure of isolation.
describe('tenant isolation matrix: every route of the OpenAPI document, every role, two orgs', { timeout: 180_000 }, () => {
  let app: TestApp;
  let f: RouteFixtures;
  let ops: Operation[];
  let counts: () => Promise<RowCounts>;
  const problems: string[] = [];
  let requests = 0;

  async function send(op: Operation, headers: Record<string, string>, req: Request): Promise<RawAnswer> {
    requests++;
    const qs = req.query && Object.keys(req.query).length > 0 ? `?${new URLSearchParams(req.query)}` : '';
    if (req.upload) return rawRequest(app.url + req.path + qs, { method: op.method, headers: { ...headers, 'content-type': req.upload.contentType }, body: req.upload.payload });
    const json: Record<string, string> = req.body !== undefined ? { 'content-type': 'application/json' } : {};
    return rawRequest(app.url + req.path + qs, { method: op.method, headers: { ...headers, ...json }, body: req.body === undefined ? undefined : JSON.stringify(req.body) });
  }

  /** The valid request of a route, naming org A's rows. */
  function requestOf(op: Operation): Request {
    const policy = POLICIES[op.key]!;
    const refs = paramRefs(op, policy);
    const values = Object.fromEntries(Object.entries(refs).map(([name, ref]) => [name, f.refs[ref]]));
    const query = policy.query?.(f);
    const upload = policy.upload?.(f);
    const body = upload ? undefined : (policy.body?.(f) ?? (['POST', 'PUT', 'PATCH'].includes(op.method) && op.bodySchema ? {} : undefined));
    return { path: fillPath(op.path, values), query, body, upload, tenant: namesTenant(refs, query, body, f) };
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const protectedOps = () => ops.filter((op) => !op.isPublic).sort((a, b) => METHOD_ORDER[a.method]! - METHOD_ORDER[b.method]!);

  function expectRefused(what: string, answer: RawAnswer, statuses: number[]): void {
    if (!statuses.includes(answer.status)) {
      problems.push(`${what}: expected ${statuses.join(' or ')}, got ${answer.status} ${answer.text.slice(0, 160)}`);
      return;
    }
    const shape = errorShapeProblem(answer.status, answer.headers, answer.body);
    if (shape) problems.push(`${what}: error body ${shape}`);
  }

  function leaked(answer: RawAnswer): string | undefined {
    return f.orgASecrets.find((secret) => answer.text.includes(secret));
  }

  beforeAll(async () => {
    app = await startTestApp({ env: { THROTTLE_ORG_PER_MINUTE: '1000000', THROTTLE_IP_PER_MINUTE: '1000000', ORG_MESSAGE_QUOTA_PER_HOUR: '100000' } });
    f = await routeFixtures(app);
    ops = operationsOf((await app.get('/api/openapi.json')).body);
    counts = await rowCounter(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(() => {
    problems.length = 0;
  });

  it('has a policy for every route of the OpenAPI document, and no policy for a route that is gone', () => {
    const documented = ops.map((op) => op.key).sort();
    expect(documented.length).toBeGreaterThan(100);
    expect(
      documented.filter((key) => !POLICIES[key]),
      'routes without a policy in test/support/route-policies.ts',
    ).toEqual([]);
    expect(
      Object.keys(POLICIES).filter((key) => !documented.includes(key)),
      'policies of routes that no longer exist',
    ).toEqual([]);
    for (const op of ops) paramRefs(op, POLICIES[op.key]!);
  });

  it('has exactly the declared public routes, in the document and in the policy table', () => {
    expect(
      ops
        .filter((op) => op.isPublic)
        .map((op) => op.key)
        .sort(),
    ).toEqual(PUBLIC_ROUTES);
    expect(
      Object.entries(POLICIES)
        .filter(([, p]) => p.access === 'public')
        .map(([key]) => key)
        .sort(),
    ).toEqual(PUBLIC_ROUTES);
  });

  it('fails closed: every protected route answers 401 to no token, a malformed, forged, expired or revoked one', async () => {
    for (const op of protectedOps()) {
      const req = requestOf(op);
      for (const kind of UNAUTHENTICATED) {
        const answer = await send(op, f.unauthenticated[kind], req);
        expectRefused(`${op.key} with ${kind} token`, answer, [401]);
        if (answer.status === 401 && (answer.body as { code?: string }).code !== 'unauthorized') problems.push(`${op.key} with ${kind} token: code ${(answer.body as { code?: string }).code}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("refuses org B's callers on org A's rows (403 or 404), stores nothing for them, and shows them none of org A's data elsewhere", async () => {
    for (const op of protectedOps()) {
      const req = requestOf(op);
      const policy = POLICIES[op.key]!;
      for (const [caller, mirrors] of Object.entries(OTHER_ORG_CALLERS) as Array<[OtherOrgCaller, Role]>) {
        const what = `${op.key} as ${caller} of org B`;
        const token = await callerToken(f, op, caller);
        const before = req.tenant ? await counts() : undefined;
        const answer = await send(op, bearer(token), req);
        const secret = leaked(answer);
        if (secret && answer.status < 300) problems.push(`${what}: answer shows org A's ${secret}`);
        if (req.tenant || !(policy.access as readonly Role[]).includes(mirrors)) {
          expectRefused(what, answer, [403, 404]);
        } else if (answer.status >= 300 && !(policy.refusedByState ?? []).includes(answer.status)) {
          problems.push(`${what}: expected it to act on its own data, got ${answer.status} ${answer.text.slice(0, 160)}`);
        }
        if (before) {
          const changes = countChanges(before, await counts());
          if (changes.length > 0 && answer.status >= 400) problems.push(`${what}: refused, yet stored rows (${changes.join('; ')})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("refuses a path that pairs org B with org A's row: the row must belong to the org of the path", async () => {
    const mixed = protectedOps().filter((op) => op.path.includes('{orgId}') && Object.entries(paramRefs(op, POLICIES[op.key]!)).some(([name, ref]) => name !== 'orgId' && ref !== 'toolName'));
    expect(mixed.length).toBeGreaterThan(10);
    for (const op of mixed) {
      const req = requestOf(op);
      const path = req.path.replace(f.acmeId, f.hooliId);
      for (const caller of ['superadmin', 'hooliOwner'] as const) {
        const answer = await send(op, bearer(f.tokens[caller]), { ...req, path });
        if (answer.status < 400) problems.push(`${op.key} as ${caller} on org B's path with org A's row: ${answer.status} ${answer.text.slice(0, 160)}`);
        else if (![403, 404].includes(answer.status)) problems.push(`${op.key} as ${caller} on org B's path with org A's row: expected 403 or 404, got ${answer.status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("lists only org B's own data to org B's callers on every list without an org in it", async () => {
    const lists = protectedOps().filter((op) => op.method === 'GET' && !op.path.includes('{'));
    for (const op of lists) {
      const { orgId: _named, ...query } = POLICIES[op.key]!.query?.(f) ?? {};
      for (const caller of Object.keys(OTHER_ORG_CALLERS) as OtherOrgCaller[]) {
        const answer = await send(op, bearer(f.tokens[caller]), { path: op.path, query, tenant: false });
        if (answer.status >= 500 || answer.status === 401) problems.push(`GET ${op.path} as ${caller}: ${answer.status}`);
        const secret = leaked(answer);
        if (secret) problems.push(`GET ${op.path} as ${caller}: shows org A's ${secret}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("admits exactly the roles of each route's policy on org A's rows; every other role gets 403 or 404", async () => {
    for (const op of protectedOps()) {
      const policy: RoutePolicy = POLICIES[op.key]!;
      const allowed = policy.access as readonly Role[];
      let deleted = false;
      for (const role of ROLES) {
        const what = `${op.key} as ${role} of org A`;
        const answer = await send(op, bearer(await callerToken(f, op, role)), requestOf(op));
        if (!allowed.includes(role)) {
          expectRefused(what, answer, [403, 404]);
          continue;
        }
        const ok = answer.status < 300 || (policy.refusedByState ?? []).includes(answer.status) || (deleted && answer.status === 404);
        if (!ok) problems.push(`${what}: expected to be admitted, got ${answer.status} ${answer.text.slice(0, 160)}`);
        else if (answer.status >= 400) {
          const shape = errorShapeProblem(answer.status, answer.headers, answer.body);
          if (shape) problems.push(`${what}: error body ${shape}`);
        }
        if (op.method === 'DELETE' && answer.status < 300) deleted = true;
      }
    }
    expect(problems).toEqual([]);
    // One app, many requests: the whole matrix in one boot.
    expect(requests).toBeGreaterThan(1500);
  });
});
