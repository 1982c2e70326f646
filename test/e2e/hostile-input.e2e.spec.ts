import { createHmac, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingService } from '../../src/modules/billing/index.js';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { messagingASignature } from '../../src/modules/channels/channels.verify.js';
import { errorShapeProblem } from '../support/error-shape.js';
import { rawRequest, type RawAnswer } from '../support/http.js';
import { HOSTILE_STRINGS, bodies, pathParams, queries, type BodyCase } from '../support/hostile-arbitraries.js';
import { routeFixtures, type Role, type RouteFixtures } from '../support/route-fixtures.js';
import { POLICIES, callerToken, fillPath, operationsOf, paramRefs, type JsonSchema, type Operation } from '../support/route-policies.js';
import { countChanges, rowCounter, type RowCounts } from '../support/row-counts.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { connectVerified, vendorsWithoutWebhook, vendorWebhookPaths } from '../support/webhooks.js';
import { rows } from '../support/rows.js';

/** Cases per route (FUZZ_RUNS), the seed to replay a failure (FUZZ_SEED; printed on failure), the routes (FUZZ_ONLY, a pattern of `METHOD /api/path`). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 16);
const ONLY = new RegExp(process.env.FUZZ_ONLY ?? '.');
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 2 ** 31);

const PUBLIC_URL = 'https://service.example.com';
const SECRETS = { chatA: 'fuzz-chat-a-secret', messagingA: 'fuzz-messaging-a-token', email: 'fuzz-email-secret', mailgun: 'fuzz-mailgun-key', billing: 'fuzz-billing-secret' };
const POOL = '+15550000001';
/** Org A's chat-a workspace and messaging-a sender: signed hostile calls from them reach org A's threads. */
const WORKSPACE = 'T-FUZZ';
const SENDER = '+15557654321';
/** Spec 7.1: 503 backpressure only on these. */
const BACKPRESSURED = new Set([
  '/api/channels/chat-a/events',
  '/api/channels/email/inbound',
  '/api/channels/email/forward/mime',
  '/api/channels/messaging-a/inbound',
  '/api/channels/messaging-b/webhook',
]);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The caller the fuzzer prefers: the widest that the route admits, so the input is what gets refused. */
const PREFERENCE: Role[] = ['superadmin', 'account_manager', 'owner', 'admin', 'expert', 'ai_operator', 'member', 'billing'];

interface FuzzCase {
  role: Role | 'anonymous';
  path: string;
  query: string;
  body: BodyCase;
  headers: Record<string, string>;
}

/**
 * Hostile input against every route of the OpenAPI document (spec 5.2, 7; API-MAP.md
 * "Conventions"): fast-check cases built from each route's own schemas (fitting, shaped but wrong,
 * arbitrary, malformed, other media types, prototype keys, hostile path and query values) and
 * signed webhook bodies with hostile contents. Never a 500; every 4xx in the error body of
 * API-MAP.md; a refused request stores no row; oversize bodies answer 413.
 */
describe('hostile input: every route, fuzzed from its schemas', () => {
  let app: TestApp;
  let f: RouteFixtures;
  let ops: Operation[];
  let counts: () => Promise<RowCounts>;
  let querySchemas: Map<string, Array<{ name: string; schema: JsonSchema }>>;
  let settleNeeded = false;
  /** The vendor webhooks (every route marked @VendorWebhook): fuzzed with signed bodies too. */
  let webhooks: Set<string>;

  async function send(method: string, c: FuzzCase): Promise<RawAnswer> {
    const headers: Record<string, string> = { ...c.headers };
    if (c.role !== 'anonymous' && headers.authorization === undefined) headers.authorization = `Bearer ${f.tokens[c.role]}`;
    if (c.body.contentType) headers['content-type'] = c.body.contentType;
    return rawRequest(`${app.url}${c.path}${c.query ? `?${c.query}` : ''}`, { method, headers, body: method === 'GET' || method === 'OPTIONS' ? undefined : c.body.payload });
  }

  /** Jobs the queue owes now, and replies the outbox owes now: background work an accepted request started. */
  async function backgroundWork(): Promise<number> {
    const [row] = await rows<{ n: number }>(
      app.running.dbService,
      sql`select
      (select count(*) from pgboss.job where state in ('created', 'retry', 'active') and start_after <= now())::int
      + (select count(*) from outbound_messages where status in ('pending', 'sending') and next_attempt_at <= now())::int as n`,
    );
    return row?.n ?? 0;
  }

  /**
   * Waits until background writes of an accepted request (audit, cost rows, pushes, an accepted
   * webhook's conversation and its mailed reply) have landed: no job or reply is due and the row
   * counts hold still.
   */
  async function settle(): Promise<void> {
    const deadline = Date.now() + 20_000;
    let last = JSON.stringify(await counts());
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      const now = JSON.stringify(await counts());
      if (now === last && (await backgroundWork()) === 0) return;
      last = now;
    }
  }

  /** What is wrong with the answer to one case; undefined when nothing is. */
  async function check(op: Operation, given: FuzzCase): Promise<string | undefined> {
    if (settleNeeded) await settle();
    settleNeeded = false;
    // A route that ends the caller's session (sign out) gets a session of its own each time.
    const c =
      POLICIES[op.key]!.endsSession && given.role !== 'anonymous' && given.headers.authorization === undefined
        ? { ...given, headers: { ...given.headers, authorization: `Bearer ${await callerToken(f, op, given.role)}` } }
        : given;
    const before = await counts();
    const answer = await send(op.method, c);
    if (Object.keys(Object.prototype).length > 0 || ({} as Record<string, unknown>).polluted !== undefined) return 'Object.prototype was polluted';
    if (answer.status >= 500) {
      const backpressure = answer.status === 503 && BACKPRESSURED.has(op.path) && (answer.body as { code?: string }).code === 'backpressure';
      if (!backpressure) return `${answer.status} ${answer.text.slice(0, 300)}`;
    }
    if (answer.status < 400) {
      if (WRITES.has(op.method)) settleNeeded = true;
      return undefined;
    }
    const shape = errorShapeProblem(answer.status, answer.headers, answer.body);
    if (shape) return `${answer.status}: ${shape} (${answer.text.slice(0, 200)})`;
    const changes = countChanges(before, await counts());
    if (changes.length > 0) {
      // Background work may have landed meanwhile: a refused request that stores rows does so again.
      await settle();
      const again = await counts();
      const retry = await send(op.method, c);
      const second = countChanges(again, await counts());
      if (retry.status >= 400 && second.length > 0) return `refused with ${answer.status}, yet stored rows: ${second.join('; ')}`;
    }
    return undefined;
  }

  function callers(op: Operation): Array<Role | 'anonymous'> {
    const access = POLICIES[op.key]!.access;
    if (access === 'public') return ['anonymous'];
    const admitted = PREFERENCE.filter((r) => access.includes(r));
    return admitted.length > 0 ? admitted : ['owner'];
  }

  function caseOf(op: Operation): fc.Arbitrary<FuzzCase> {
    const refs = paramRefs(op, POLICIES[op.key]!);
    const params = fc.record(Object.fromEntries(Object.entries(refs).map(([name, ref]) => [name, pathParams(f.refs[ref])])));
    const headers = fc.oneof(
      { weight: 8, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('Bearer', 'Bearer ', `Bearer ${'a'.repeat(5000)}`, 'Bearer a.b.c', 'Bearer e30.e30.', 'Token abc', 'Bearer %00').map((authorization) => ({ authorization })),
      },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((v) => /^[\x20-\x7e]{1,300}$/.test(v))).map((v) => ({ 'x-request-id': v, 'idempotency-key': v, 'x-forwarded-for': v })) },
    );
    return fc
      .record({
        role: fc.constantFrom(...callers(op)),
        path: params.map((values) => fillRaw(op.path, values)),
        query: queries(querySchemas.get(op.key) ?? []),
        body: op.method === 'GET' || op.method === 'OPTIONS' ? fc.constant({}) : webhooks.has(op.path) ? fc.oneof(bodies(op.bodySchema), signedWebhook(op.path)) : bodies(op.bodySchema),
        headers,
      })
      .map((c) => ('headers' in c.body ? { ...c, headers: { ...c.headers, ...(c.body as SignedBody).headers } } : c));
  }

  // Signed webhook calls with hostile contents: the signature passes, so the parsers meet the input.
  type SignedBody = BodyCase & { headers: Record<string, string> };
  const leaf = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS.filter((v) => v.length < 2000)), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, 0, -1, 1.5, true, [], {}));
  function signedWebhook(path: string): fc.Arbitrary<BodyCase> {
    const t = () => String(Math.floor(Date.now() / 1000));
    const asJson = (value: unknown) => (typeof value === 'string' && value.startsWith('raw:') ? value.slice(4) : JSON.stringify(value));
    const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('raw:null', 'raw:"text"', 'raw:42', 'raw:[]', 'raw:{', 'raw:true'));
    switch (path) {
      case '/api/channels/chat-a/events': {
        const envelope = fc.record(
          {
            type: fc.oneof(fc.constantFrom('event_callback', 'url_verification'), leaf),
            team_id: fc.oneof(fc.constant(WORKSPACE), leaf),
            event_id: leaf,
            challenge: leaf,
            event: fc.oneof(
              leaf,
              fc.record(
                {
                  type: fc.oneof(fc.constantFrom('message', 'app_mention'), leaf),
                  subtype: leaf,
                  channel: leaf,
                  ts: leaf,
                  user: leaf,
                  text: leaf,
                  channel_type: leaf,
                  thread_ts: leaf,
                  bot_id: leaf,
                  files: leaf,
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        );
        return fc.oneof(envelope, anyJson).map((value) => {
          const raw = asJson(value);
          const ts = t();
          return {
            contentType: 'application/json',
            payload: raw,
            headers: { 'x-chat-a-request-timestamp': ts, 'x-chat-a-signature': `v0=${createHmac('sha256', SECRETS.chatA).update(`v0:${ts}:${raw}`).digest('hex')}` },
          };
        });
      }
      case '/api/channels/email/inbound':
      case '/api/channels/email/forward/mime': {
        const message = fc
          .tuple(
            fc.constantFrom(
              '',
              'To: emilie.acme@workspace.example.com\r\n',
              'To: <>\r\nFrom: \r\n',
              'Message-ID: <x>\r\nTo: a@b\r\nContent-Type: multipart/mixed; boundary=q\r\n',
              'From: Eve <eve@example.com>\r\nTo: emilie.acme@workspace.example.com\r\nSubject: \u0000\ud800\r\nMessage-ID: <\u0000@x>\r\n',
              'From: "\u0000" <eve@example.com>\r\nTo: emilie.acme@workspace.example.com\r\nContent-Type: text/plain; charset=utf-16\r\n',
            ),
            fc.string({ maxLength: 200 }),
          )
          .map(([head, rest]) => Buffer.from(`${head}\r\n${rest}`).toString('base64'));
        if (path.endsWith('/mime')) {
          // Mailgun's form, signed with a fresh token: the hostile message and recipient reach the parsers.
          const text = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS.filter((v) => v.length < 2000)), fc.string({ maxLength: 30 }));
          const mime = fc.oneof(
            message.map((b64) => Buffer.from(b64, 'base64').toString('utf8')),
            text,
          );
          return fc.record({ 'body-mime': mime, recipient: fc.oneof(fc.constant('emilie.acme@workspace.example.com'), text) }, { requiredKeys: [] }).map((fields) => {
            const [timestamp, token] = [t(), randomBytes(25).toString('hex')];
            const signed = {
              ...fields,
              timestamp,
              token,
              signature: createHmac('sha256', SECRETS.mailgun)
                .update(timestamp + token)
                .digest('hex'),
            };
            const boundary = `fuzz-${token.slice(0, 16)}`;
            const payload =
              Object.entries(signed)
                .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
                .join('') + `--${boundary}--\r\n`;
            return { contentType: `multipart/form-data; boundary=${boundary}`, payload, headers: {} };
          });
        }
        return fc.oneof(fc.record({ rawMessage: fc.oneof(message, leaf) }, { requiredKeys: [] }), anyJson).map((value) => {
          const raw = asJson(value);
          return { contentType: 'application/json', payload: raw, headers: { 'x-email-signature': `sha256=${createHmac('sha256', SECRETS.email).update(raw).digest('hex')}` } };
        });
      }
      case '/api/channels/messaging-a/inbound': {
        const text = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS.filter((v) => v.length < 2000)), fc.string({ maxLength: 30 }));
        return fc
          .record(
            {
              To: fc.oneof(fc.constant(POOL), text),
              From: fc.oneof(fc.constant(SENDER), text),
              Body: text,
              MessageSid: text,
              NumMedia: fc.oneof(text, fc.constantFrom('1e9', '-5', 'NaN', '3')),
              MediaUrl0: text,
            },
            { requiredKeys: [] },
          )
          .map((params) => {
            const clean = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.replace(/[\ud800-\udfff]/g, '')]));
            const payload = new URLSearchParams(clean).toString();
            return {
              contentType: 'application/x-www-form-urlencoded',
              payload,
              headers: { 'x-messaging-a-signature': messagingASignature(SECRETS.messagingA, `${PUBLIC_URL}/api/channels/messaging-a/inbound`, clean) },
            };
          });
      }
      case '/api/channels/messaging-b/webhook': {
        const update = fc.record(
          {
            update_id: leaf,
            message: fc.oneof(
              leaf,
              fc.record(
                {
                  message_id: leaf,
                  text: leaf,
                  caption: leaf,
                  chat: fc.oneof(leaf, fc.record({ id: leaf, type: leaf }, { requiredKeys: [] })),
                  from: fc.oneof(leaf, fc.record({ id: leaf, is_bot: leaf, first_name: leaf }, { requiredKeys: [] })),
                  reply_to_message: leaf,
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        );
        return fc.oneof(update, anyJson).map((value) => ({ contentType: 'application/json', payload: asJson(value), headers: { 'x-messaging-b-secret-token': f.webhookSecret } }));
      }
      case '/api/billing/provider/webhook': {
        const event = fc.record(
          {
            id: leaf,
            type: fc.oneof(fc.constantFrom('payment_failed', 'payment_succeeded'), leaf),
            data: fc.oneof(
              leaf,
              fc.record({ orgId: fc.oneof(fc.constant(f.hooliId), fc.uuid(), leaf), invoiceId: fc.oneof(fc.uuid(), leaf), amount: leaf, currency: leaf, failureReason: leaf }, { requiredKeys: [] }),
            ),
          },
          { requiredKeys: [] },
        );
        return fc.oneof(event, anyJson).map((value) => {
          const raw = asJson(value);
          return { contentType: 'application/json', payload: raw, headers: { 'x-billing-signature': billingSignature(SECRETS.billing, Number(t()), raw) } };
        });
      }
      default:
        return bodies(undefined);
    }
  }

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        THROTTLE_ORG_PER_MINUTE: '1000000',
        THROTTLE_IP_PER_MINUTE: '1000000',
        ORG_MESSAGE_QUOTA_PER_HOUR: '100000',
        PUBLIC_URL,
        CHAT_A_SIGNING_SECRET: SECRETS.chatA,
        MESSAGING_A_AUTH_TOKEN: SECRETS.messagingA,
        MESSAGING_A_NUMBER_POOL: POOL,
        EMAIL_INBOUND_SIGNING_SECRET: SECRETS.email,
        MAILGUN_WEBHOOK_SIGNING_KEY: SECRETS.mailgun,
        BILLING_WEBHOOK_SECRET: SECRETS.billing,
      },
    });
    f = await routeFixtures(app);
    webhooks = new Set(vendorWebhookPaths(app));
    for (const integration of [
      { channel: 'chat-a', externalId: WORKSPACE, config: { botUserId: 'UBOT' } },
      { channel: 'messaging-a', config: { whitelist: [SENDER] } },
    ]) {
      await connectVerified(app, f.acmeId, integration, f.tokens.account_manager);
    }
    const doc = (await app.get('/api/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema: JsonSchema }> }>> };
    ops = operationsOf(doc as never);
    querySchemas = new Map(
      Object.entries(doc.paths).flatMap(([path, byMethod]) =>
        Object.entries(byMethod).map(
          ([method, op]) => [`${method.toUpperCase()} ${path}`, (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema }))] as const,
        ),
      ),
    );
    counts = await rowCounter(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('fuzzes every vendor webhook (the routes marked @VendorWebhook) with signed bodies too', () => {
    expect(webhooks.size).toBeGreaterThan(0);
    expect(vendorsWithoutWebhook([...webhooks])).toEqual([]);
    for (const path of BACKPRESSURED) expect(webhooks, path).toContain(path);
  });

  it(`answers every route's hostile cases without a 500, in the error body, storing nothing when refused (${RUNS} cases a route, seed ${SEED})`, { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    for (const [index, op] of ops.entries()) {
      if (!POLICIES[op.key]) throw new Error(`${op.key} has no policy: see test/support/route-policies.ts`);
      if (!ONLY.test(op.key)) continue;
      let problem: string | undefined;
      let failing: FuzzCase | undefined;
      const result = await fc.check(
        fc.asyncProperty(caseOf(op), async (c) => {
          problem = await check(op, c);
          if (problem) failing = c;
          return problem === undefined;
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
      if (result.failed)
        failures.push(`${op.key}: ${problem}\n    case: ${JSON.stringify(failing, (_, v: unknown) => (typeof v === 'string' && v.length > 300 ? `${v.slice(0, 300)}...(${v.length})` : v))}`);
    }
    expect(failures, `seed ${SEED}: replay with FUZZ_SEED=${SEED}`).toEqual([]);
  });

  it('processes every signed hostile webhook call it accepted without a failure of the worker', { timeout: 120_000 }, async () => {
    const db = app.running.dbService.root;
    const open = async () =>
      ((await db.execute(sql`select count(*)::int as n from inbound_events where status in ('queued', 'processing')`)) as unknown as { rows: Array<{ n: number }> }).rows?.[0]?.n ?? 0;
    const deadline = Date.now() + 90_000;
    while ((await open()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await open(), 'inbound events still waiting for the worker').toBe(0);
    // Their replies leave through the outbox (a mail lands in mail_outbox): done before the next test counts rows.
    const sending = async () =>
      ((await db.execute(sql`select count(*)::int as n from outbound_messages where status in ('pending', 'sending') and next_attempt_at <= now()`)) as unknown as { rows: Array<{ n: number }> })
        .rows?.[0]?.n ?? 0;
    while ((await sending()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const failed = await db.execute(sql`select channel, last_error, body from inbound_events where status = 'failed'`);
    const rows = (Array.isArray(failed) ? failed : (failed as { rows: unknown[] }).rows) as Array<{ channel: string; last_error: string; body: string }>;
    expect(rows.map((r) => `${r.channel}: ${r.last_error} <- ${r.body.slice(0, 200)}`)).toEqual([]);
  });

  it('answers what the HTTP parser refuses (a malformed request, headers over the limit) in the error body too', async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(app.url).port), '127.0.0.1', () => socket.end(request));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    for (const [request, status, code] of [
      ['GARBAGE\r\n\r\n', 400, 'bad_request'],
      [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
      [`GET /api/health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'headers_too_large'],
    ] as const) {
      const text = await raw(request);
      const [head, body] = text.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(JSON.parse(body!)).toEqual({ statusCode: status, code, error: expect.any(String), message: expect.any(String) });
      expect(errorShapeProblem(status, new Headers({ 'content-type': 'application/json' }), JSON.parse(body!))).toBeUndefined();
    }
  });

  it('refuses a JSON body nested deeper than 64 levels on every route that takes one (webhooks too, signed or not) with 400 validation_failed, and stores nothing', { timeout: 300_000 }, async () => {
    const deep = (levels: number, kind: 'array' | 'object' | 'mixed') => {
      const open = (i: number) => (kind === 'array' || (kind === 'mixed' && i % 2 === 0) ? '[' : '{"a":');
      const close = (i: number) => (kind === 'array' || (kind === 'mixed' && i % 2 === 0) ? ']' : '}');
      let text = '';
      for (let i = 0; i < levels; i++) text += open(i);
      text += '1';
      for (let i = levels - 1; i >= 0; i--) text += close(i);
      return text;
    };
    const payloads = [65, 10_000].flatMap((levels) => (['array', 'object', 'mixed'] as const).map((kind) => ({ name: `${levels} levels of ${kind}`, payload: deep(levels, kind) })));
    // Inside a valid envelope, behind a valid signature: the parser refuses it before any handler.
    const wrapped = `{"type":"event_callback","team_id":"${WORKSPACE}","event_id":"Ev-deep","event":{"type":"message","channel":"C1","user":"U1","ts":"1.1","text":${deep(100, 'mixed')}}}`;
    const ts = String(Math.floor(Date.now() / 1000));
    const signedChatA = { 'x-chat-a-request-timestamp': ts, 'x-chat-a-signature': `v0=${createHmac('sha256', SECRETS.chatA).update(`v0:${ts}:${wrapped}`).digest('hex')}` };
    const problems: string[] = [];
    const refusedDeep = (answer: RawAnswer) => {
      const body = answer.body as { code?: string; details?: Array<{ field: string; message: string }> };
      return answer.status === 400 && body.code === 'validation_failed' && errorShapeProblem(400, answer.headers, answer.body) === undefined && /deeper than 64/.test(body.details?.[0]?.message ?? '');
    };
    for (const op of ops.filter((o) => WRITES.has(o.method))) {
      const role = callers(op)[0]!;
      const path = fillPath(op.path, Object.fromEntries(Object.entries(paramRefs(op, POLICIES[op.key]!)).map(([n, r]) => [n, f.refs[r]])));
      const cases = [
        ...payloads.map((p) => ({ ...p, headers: {} as Record<string, string> })),
        ...(op.path === '/api/channels/chat-a/events' ? [{ name: 'signed chat-a event', payload: wrapped, headers: signedChatA }] : []),
      ];
      for (const { name, payload, headers } of cases) {
        const before = await counts();
        const answer = await send(op.method, { role, path, query: '', body: { contentType: 'application/json', payload }, headers });
        if (!refusedDeep(answer)) problems.push(`${op.key} (${name}): ${answer.status} ${answer.text.slice(0, 200)}`);
        const changes = countChanges(before, await counts());
        if (changes.length > 0) problems.push(`${op.key} (${name}): stored rows (${changes.join('; ')})`);
      }
    }
    expect(problems).toEqual([]);
    // 64 levels are still JSON like any other: the route's own schema decides.
    const at64 = await send('POST', { role: 'anonymous', path: '/api/auth/login', query: '', body: { contentType: 'application/json', payload: deep(64, 'array') }, headers: {} });
    expect(at64.status).toBe(400);
    expect((at64.body as { details: Array<{ message: string }> }).details[0]!.message).not.toMatch(/deeper than/);
  });

  it('refuses a body over the limit on every route that takes one with 413 in the error body, and stores nothing', { timeout: 180_000 }, async () => {
    const big = JSON.stringify({ content: 'a'.repeat(1024 * 1024 + 10) });
    const problems: string[] = [];
    // The fuzz above opened orgs: the billing sweep (every 10 minutes) would give them their accounts
    // in the middle of the walk. Run it now, so that its next tick has nothing to write.
    await app.running.app.get(BillingService).syncAccountsAndSubscriptions();
    await settle();
    for (const op of ops.filter((o) => WRITES.has(o.method))) {
      const role = callers(op)[0]!;
      for (const [contentType, payload] of [
        ['application/json', big],
        ['application/x-www-form-urlencoded', `Body=${'a'.repeat(1024 * 1024 + 10)}`],
      ] as const) {
        const c: FuzzCase = {
          role,
          path: fillPath(op.path, Object.fromEntries(Object.entries(paramRefs(op, POLICIES[op.key]!)).map(([n, r]) => [n, f.refs[r]]))),
          query: '',
          body: { contentType, payload },
          headers: {},
        };
        const before = await counts();
        const answer = await send(op.method, c);
        const shape = answer.status === 413 ? errorShapeProblem(413, answer.headers, answer.body) : `status ${answer.status}`;
        if (shape) problems.push(`${op.key} (${contentType}): ${shape} ${answer.text.slice(0, 160)}`);
        const changes = countChanges(before, await counts());
        if (changes.length > 0) problems.push(`${op.key}: stored rows for an oversize body (${changes.join('; ')})`);
      }
    }
    // A chunked body (no Content-Length) is measured as it arrives.
    const chunked = await fetch(`${app.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(i === 0 ? '{"email":"' : 'a'.repeat(64 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(errorShapeProblem(413, chunked.headers, await chunked.json())).toBeUndefined();
    expect(problems).toEqual([]);
  });
});

/** The path with its parameters as given (already encoded, or deliberately malformed). */
function fillRaw(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!).replace(/\*$/, 'sub/path');
}
