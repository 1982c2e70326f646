import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { HttpClient } from './http.js';
import { freePort, sleep, startService, stopProcess, waitReady, type ServiceInstance } from './processes.js';
import { privateServicesMissing, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './private-services.js';
import { connectVerified, messagingACall } from './webhooks.js';

export const DEMO_PASSWORD = 'demo1234';

/** Why the fault tests cannot run on this machine (they are then skipped), or undefined. */
export const faultsUnsupported = privateServicesMissing();
if (faultsUnsupported) console.warn(`fault tests skipped: ${faultsUnsupported}`);

/**
 * A deployment of the built service for fault tests: a private PostgreSQL server and Redis that
 * the test may stop, and instances started as child processes of `dist/src/main.js` (so they can
 * be killed), all sharing one DATA_DIR (keys) and one environment.
 */
export interface Deployment {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  env: Record<string, string>;
  /** The test's own connection to the deployment's database. */
  db: pg.Pool;
  /** Starts (or restarts, on the same port) the instance `name` and waits until it is ready. */
  start(name: string, extraEnv?: Record<string, string>): Promise<ServiceInstance & { http: HttpClient }>;
  instance(name: string): ServiceInstance & { http: HttpClient };
  /** Every line of every instance (restarts included), prefixed with its name. */
  output(): string;
  close(): Promise<void>;
}

export async function startDeployment(extraEnv: Record<string, string> = {}): Promise<Deployment> {
  const [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-faults-'));
  const env: Record<string, string> = {
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
    APP_ENV: 'test',
    LOG_LEVEL: 'info',
    THROTTLE_ORG_PER_MINUTE: '100000',
    THROTTLE_IP_PER_MINUTE: '100000',
    ORG_MESSAGE_QUOTA_PER_HOUR: '100000',
    ...extraEnv,
  };
  const db = new pg.Pool({ connectionString: postgres.url, max: 3 });
  // The server is stopped on purpose: an idle client's error must not end the test process.
  db.on('error', () => undefined);
  const instances = new Map<string, ServiceInstance & { http: HttpClient }>();
  const ports = new Map<string, number>();
  const past: Array<{ name: string; lines: string[] }> = [];
  return {
    pg: postgres,
    redis,
    env,
    db,
    async start(name, more = {}) {
      const previous = instances.get(name);
      if (previous) past.push({ name, lines: previous.lines });
      const port = ports.get(name) ?? (await freePort());
      ports.set(name, port);
      const instance = Object.assign(startService(name, port, { ...env, ...more }), { http: new HttpClient(`http://127.0.0.1:${port}`) });
      instances.set(name, instance);
      await waitReady(instance, 90_000);
      return instance;
    },
    instance(name) {
      const found = instances.get(name);
      if (!found) throw new Error(`no instance ${name}`);
      return found;
    },
    output: () => [...past, ...[...instances.entries()].map(([name, i]) => ({ name, lines: i.lines }))].flatMap((p) => p.lines.map((l) => `[${p.name}] ${l}`)).join('\n'),
    async close() {
      await Promise.all([...instances.values()].map((i) => stopProcess(i, 'SIGKILL')));
      await db.end().catch(() => undefined);
      await Promise.all([postgres.close(), redis.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment of an openai-compatible model served by a local FakeProvider. */
export function modelEnv(baseUrl: string): Record<string, string> {
  return { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: baseUrl, LLM_MODEL: 'gpt-4o-mini' };
}

/** The messaging-a channel of the fault tests: its webhook secret, pool number and the vendor its replies go to. */
export const MESSAGING_A = { publicUrl: 'https://faults.example.com', authToken: 'faults-messaging-a-token', poolNumber: '+15550000201' };

export function messagingAEnv(vendorUrl: string): Record<string, string> {
  return { PUBLIC_URL: MESSAGING_A.publicUrl, MESSAGING_A_AUTH_TOKEN: MESSAGING_A.authToken, MESSAGING_A_NUMBER_POOL: MESSAGING_A.poolNumber, MESSAGING_A_API_BASE_URL: `${vendorUrl}/messaging-a` };
}

/** A signed inbound text from a client's number to the pool number. */
export function messagingAText(sid: string, from: string, body: string) {
  return messagingACall(MESSAGING_A.publicUrl, MESSAGING_A.authToken, { MessageSid: sid, From: from, To: MESSAGING_A.poolNumber, Body: body });
}

/** Signs the demo client in and, as the demo AM, connects (and verifies) the demo org's messaging-a integration for these client numbers. */
export async function demoClientWithMessagingA(http: HttpClient, numbers: string[]): Promise<{ client: string; clientId: string }> {
  const client = await http.login('client@acme.demo.invalid', DEMO_PASSWORD);
  const me = (await http.get('/api/auth/me', { token: client })).body;
  const am = await http.login('account_manager@platform.demo.invalid', DEMO_PASSWORD);
  await connectVerified(http, me.orgMemberships[0].orgId, { channel: 'messaging-a', config: { whitelist: numbers }, secrets: { accountSid: 'AC-FAULTS', authToken: 'sender-token' } }, am);
  return { client, clientId: me.id };
}

/** Polls until `check` returns true; the error names what was awaited. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Sends a client message; the status, or 0 when the instance did not answer. */
export async function sendMessage(baseUrl: string, token: string, conversationId: string, content: string, idempotencyKey: string = randomUUID()): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(`${baseUrl}/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ content }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  } catch {
    return { status: 0, body: null };
  }
}

/** Client messages of some conversations with how many replies each has (exactly once means 1). */
export async function repliesPerMessage(db: pg.Pool, conversationIds: string[]): Promise<Array<{ id: string; key: string | null; replies: number }>> {
  const { rows } = await db.query<{ id: string; key: string | null; replies: number }>(
    `select m.id, m.idempotency_key as key, (select count(*)::int from conversation_messages r where r.reply_to_message_id = m.id) as replies
       from conversation_messages m where m.role = 'client' and m.conversation_id = any($1::uuid[])`,
    [conversationIds],
  );
  return rows;
}

/** The work nobody has finished yet: turns, inbound events and outbound replies still open. */
export async function openWork(db: pg.Pool): Promise<{ turns: number; events: number; outbound: number }> {
  const { rows } = await db.query<{ turns: number; events: number; outbound: number }>(`select
      (select count(*)::int from conversation_turns where status in ('queued', 'running')) as turns,
      (select count(*)::int from inbound_events where status in ('queued', 'processing')) as events,
      (select count(*)::int from outbound_messages where status in ('pending', 'sending')) as outbound`);
  return rows[0]!;
}
