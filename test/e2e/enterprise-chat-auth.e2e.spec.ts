import { SignJWT, decodeProtectedHeader, generateKeyPair } from 'jose';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clock } from '../../src/platform/clock/clock.js';
import { DbService } from '../../src/platform/db/db.service.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { enterpriseChatVendorSettings, messageActivity, startEnterpriseChatVendor, type EnterpriseChatVendor, type TokenTimes } from '../support/enterprise-chat-vendor.js';
import { productionEnv } from '../support/env.js';
import { processedEvent, rows } from '../support/inbound.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { acmeConnected } from '../support/webhooks.js';

/**
 * The enterprise-chat bearer JWT (spec 5.6, spec 8 "enterprise-chat key set cache / clock skew",
 * spec 4.8 rule 6): `nbf` and `exp` with 5 minutes of skew, the key set cached 24 hours (counted at
 * the vendor's loopback stand-in, time moved on the service's clock), and fail closed in production
 * without a valid app id. Tokens are minted by the stand-in with the channel's documented claims.
 */
const APP = { id: 'c9e8c047-2a74-40a2-b28a-b162d5f5327c', password: 'bot-app-password-0123456789' };
const BOT_ID = `28:${APP.id}`;
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const HOUR = 3600_000;
const MINUTE = 60_000;
const METADATA_PATH = '/v1/.well-known/openidconfiguration';
const KEYS_PATH = '/v1/.well-known/keys';

const vendorEnv = (vendor: EnterpriseChatVendor) => enterpriseChatVendorSettings(vendor, APP.password);
const activity = (vendor: EnterpriseChatVendor, text: string) =>
  messageActivity(vendor, { tenant: TENANT, bot: BOT_ID, conversation: { id: `a:1Xq-auth-${text.replace(/\W+/g, '-')}`, type: 'personal' } }, text);
const keyOf = (a: ReturnType<typeof activity>) => `${a.conversation.id}:${a.id}`;

function post(app: TestApp, body: unknown, authorization?: string, path: 'messages' | 'webhook' = 'messages') {
  return app.request('POST', `/api/channels/enterprise-chat/${path}`, { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } });
}

async function keptEvents(db: DbService): Promise<number> {
  return (await rows<{ n: number }>(db, sql`select count(*)::int as n from inbound_events where channel = 'enterprise-chat'`))[0]!.n;
}

/** A token with the vendor's claims and key id, signed with a key that is not in the vendor's key set. */
async function foreignToken(vendor: EnterpriseChatVendor): Promise<string> {
  const { kid } = decodeProtectedHeader(await vendor.channelToken());
  const { privateKey } = await generateKeyPair('RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ serviceurl: vendor.serviceUrl })
    .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
    .setIssuer(vendor.issuer)
    .setAudience(APP.id)
    .setNotBefore(now - 60)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
}

/** The vendor's own token with its signature's last characters changed. */
async function tamperedToken(vendor: EnterpriseChatVendor): Promise<string> {
  const token = await vendor.channelToken();
  return `${token.slice(0, -6)}${token.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`;
}

describe('enterprise-chat token times and key set cache (spec 5.6, spec 8)', () => {
  let app: TestApp;
  let vendor: EnterpriseChatVendor;
  let db: DbService;
  let clock: Clock;

  const fetches = () => ({ metadata: vendor.calls.filter((c) => c.path === METADATA_PATH).length, keys: vendor.calls.filter((c) => c.path === KEYS_PATH).length });
  /** A token minted at the service's (possibly moved) time, with the given times. */
  const bearer = async (times: Omit<TokenTimes, 'now'> = {}) => `Bearer ${await vendor.channelToken({}, { now: clock.now(), ...times })}`;
  const nowS = () => Math.floor(clock.now().getTime() / 1000);

  beforeAll(async () => {
    vendor = await startEnterpriseChatVendor(APP);
    app = await startTestApp({ env: { ENTERPRISE_CHAT_APP_ID: APP.id, ...vendorEnv(vendor) } });
    db = app.running.app.get(DbService);
    clock = app.running.app.get(Clock);
    await acmeConnected(app, [{ channel: 'enterprise-chat', externalId: TENANT }]);
  });
  afterAll(async () => {
    await app?.close();
    await vendor?.close();
  });

  it('nbf: more than 5 minutes in the future is refused (401, nothing kept); within 5 minutes it is accepted', async () => {
    const early = activity(vendor, 'nbf six minutes ahead');
    const res = await post(app, early, await bearer({ nbf: nowS() + 6 * 60 }));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
    const justOver = activity(vendor, 'nbf 5 minutes and 20 seconds ahead');
    expect((await post(app, justOver, await bearer({ nbf: nowS() + 320 }))).status).toBe(401);
    const within = activity(vendor, 'nbf four and a half minutes ahead');
    expect((await post(app, within, await bearer({ nbf: nowS() + 270 }))).status).toBe(200);
    expect(await processedEvent(db, 'enterprise-chat', keyOf(within))).toMatchObject({ status: 'done' });
    expect((await rows(db, sql`select 1 from inbound_events where event_key in (${keyOf(early)}, ${keyOf(justOver)})`)).length).toBe(0);
  });

  it('exp: more than 5 minutes past is refused (401, nothing kept); within 5 minutes past it is accepted', async () => {
    const late = activity(vendor, 'expired six minutes ago');
    expect((await post(app, late, await bearer({ nbf: nowS() - HOUR / 1000, exp: nowS() - 6 * 60 }))).status).toBe(401);
    const justOver = activity(vendor, 'expired 5 minutes and 20 seconds ago');
    expect((await post(app, justOver, await bearer({ nbf: nowS() - HOUR / 1000, exp: nowS() - 320 }))).status).toBe(401);
    const within = activity(vendor, 'expired four and a half minutes ago');
    expect((await post(app, within, await bearer({ nbf: nowS() - HOUR / 1000, exp: nowS() - 270 }))).status).toBe(200);
    expect(await processedEvent(db, 'enterprise-chat', keyOf(within))).toMatchObject({ status: 'done' });
    expect((await rows(db, sql`select 1 from inbound_events where event_key in (${keyOf(late)}, ${keyOf(justOver)})`)).length).toBe(0);
  });

  it('the key set is fetched once and kept 24 hours: no refetch within them, one refetch after', async () => {
    // Whatever an earlier test cached is now older than 24 hours.
    clock.advance(24 * HOUR + MINUTE);
    const start = fetches();
    const accepted = async (text: string) => expect((await post(app, activity(vendor, text), await bearer())).status, text).toBe(200);

    await accepted('fetches the key set');
    expect(fetches()).toEqual({ metadata: start.metadata + 1, keys: start.keys + 1 });
    for (const text of ['cached one', 'cached two', 'cached three']) await accepted(text);
    expect(fetches()).toEqual({ metadata: start.metadata + 1, keys: start.keys + 1 });

    // A minute short of 24 hours after the fetch: still the cached set.
    clock.advance(24 * HOUR - MINUTE);
    await accepted('23 h 59 min later');
    expect(fetches()).toEqual({ metadata: start.metadata + 1, keys: start.keys + 1 });

    // A minute past 24 hours: the metadata and the key set are fetched again, once.
    clock.advance(2 * MINUTE);
    await accepted('24 h 1 min later');
    await accepted('cached again');
    expect(fetches()).toEqual({ metadata: start.metadata + 2, keys: start.keys + 2 });
    expect(vendor.violations).toEqual([]);
  });
});

describe('enterprise-chat in production fails closed without a valid app id (spec 5.6)', () => {
  let vendor: EnterpriseChatVendor;
  const lines: string[] = [];

  beforeAll(async () => {
    vendor = await startEnterpriseChatVendor(APP);
    setLogDestination({ write: (line: string) => void lines.push(line) });
  });
  afterAll(async () => {
    setLogDestination(undefined);
    await vendor?.close();
  });

  const refusals = (reason: string) =>
    lines
      .map((l) => JSON.parse(l) as { event?: string; channel?: string; reason?: string })
      .filter((l) => l.event === 'security.webhook_signature_invalid' && l.channel === 'enterprise-chat' && l.reason === reason).length;

  it.each([
    ['unset', {}],
    ['blank', { ENTERPRISE_CHAT_APP_ID: '   ' }],
  ])('ENTERPRISE_CHAT_APP_ID %s: unsigned, wrongly signed and even well-signed activities answer 401 on both routes, nothing kept', async (_name, appId) => {
    const app = await startTestApp({ seeded: false, env: productionEnv({ LOG_LEVEL: 'warn', ...vendorEnv(vendor), ...appId }) });
    try {
      const db = app.running.app.get(DbService);
      const before = refusals('unconfigured');
      const attempts: Array<string | undefined> = [
        undefined,
        'Bearer',
        'Bearer not-a-jwt',
        `Bearer ${await foreignToken(vendor)}`,
        `Bearer ${await tamperedToken(vendor)}`,
        `Bearer ${await vendor.channelToken()}`,
      ];
      for (const path of ['messages', 'webhook'] as const) {
        for (const authorization of attempts) {
          const res = await post(app, activity(vendor, 'hello'), authorization, path);
          expect(res.status, `${path} ${authorization?.slice(0, 20)}`).toBe(401);
          expect(res.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
        }
      }
      expect(await keptEvents(db)).toBe(0);
      expect(refusals('unconfigured') - before).toBe(attempts.length * 2);
    } finally {
      await app.close();
    }
  });

  it('with the app id configured, the same production deployment refuses the wrongly signed and accepts the well-signed activity', async () => {
    const app = await startTestApp({ seeded: false, env: productionEnv({ LOG_LEVEL: 'warn', ENTERPRISE_CHAT_APP_ID: APP.id, ...vendorEnv(vendor) }) });
    try {
      const db = app.running.app.get(DbService);
      for (const authorization of [undefined, `Bearer ${await foreignToken(vendor)}`, `Bearer ${await tamperedToken(vendor)}`]) {
        expect((await post(app, activity(vendor, 'refused'), authorization)).status).toBe(401);
      }
      expect(await keptEvents(db)).toBe(0);
      const good = activity(vendor, 'signed by the channel');
      expect((await post(app, good, `Bearer ${await vendor.channelToken()}`)).status).toBe(200);
      // No org holds the tenant in an empty deployment: kept and quarantined, never a turn.
      expect(await processedEvent(db, 'enterprise-chat', keyOf(good))).toMatchObject({ status: 'quarantined', reason: 'unresolved_org' });
    } finally {
      await app.close();
    }
  });
});
