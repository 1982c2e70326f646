import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig as load } from './config.js';

/** A development start (APP_ENV unset means production), unless the source says otherwise. */
const loadConfig = (source: Record<string, string | undefined>) => load({ APP_ENV: 'development', ...source });

describe('loadConfig', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'cos-config-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('takes APP_ENV unset as production: refuses without keys, listens on every interface', () => {
    expect(() => load({ DATA_DIR: tmp() })).toThrow(/APP_ENV=production refuses to boot without ENCRYPTION_KEY/);
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const keys = { ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_PRIVATE_KEY: pair.privateKey, JWT_PUBLIC_KEY: pair.publicKey };
    const c = load({ DATA_DIR: tmp(), ...keys });
    expect(c).toMatchObject({ env: 'production', isProduction: true, host: '0.0.0.0', seedDemoData: false, metricsToken: undefined });
    expect(load({ DATA_DIR: tmp(), ...keys, HOST: '127.0.0.1', METRICS_TOKEN: 'm'.repeat(32) })).toMatchObject({ host: '127.0.0.1', metricsToken: 'm'.repeat(32) });
  });

  it('listens on the loopback interface only outside production, unless HOST says otherwise', () => {
    expect(loadConfig({ DATA_DIR: tmp() }).host).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: tmp(), APP_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ DATA_DIR: tmp(), HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('applies the defaults of API-MAP.md', () => {
    const c = loadConfig({ DATA_DIR: tmp() });
    expect(c).toMatchObject({
      port: 3000,
      env: 'development',
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      redisUrl: undefined,
      workspaceDomain: 'workspace.example.com',
      limits: { orgMessageQuotaPerHour: 1000, throttleOrgPerMinute: 6000, throttleIpPerMinute: 1200, inboundQueueMaxDepth: 10000, backpressureRetryAfterS: 30 },
      billing: { graceDays: 7 },
      seedDemoData: true,
    });
    expect(c.llm.provider).toBe('offline');
  });

  it('takes over a dead instance\'s work after the recovery defaults, or the configured times', () => {
    expect(loadConfig({ DATA_DIR: tmp() }).recovery).toEqual({ turnLeaseMs: 180_000, inboundLeaseMs: 300_000, strandedAfterMs: 30_000 });
    const c = loadConfig({ DATA_DIR: tmp(), TURN_LEASE_MS: '6000', INBOUND_LEASE_MS: '8000', STRANDED_AFTER_MS: '3000' });
    expect(c.recovery).toEqual({ turnLeaseMs: 6000, inboundLeaseMs: 8000, strandedAfterMs: 3000 });
    expect(() => loadConfig({ DATA_DIR: tmp(), TURN_LEASE_MS: '10' })).toThrow(/TURN_LEASE_MS/);
  });

  it('stops on a bad value with a message naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), PORT: 'eighty' })).toThrow(/PORT: must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: tmp(), THROTTLE_ORG_PER_MINUTE: '0' })).toThrow(/THROTTLE_ORG_PER_MINUTE/);
    expect(() => loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATA_DIR: tmp(), APP_ENV: 'staging' })).toThrow(/APP_ENV/);
    expect(() => loadConfig({ DATA_DIR: tmp(), ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/ENCRYPTION_KEY: must be 32 bytes/);
  });

  it('lists the vendors\' public file hosts for attachments unless ATTACHMENT_HOSTS says otherwise', () => {
    const DATA_DIR = tmp();
    const defaults = loadConfig({ DATA_DIR }).channels.attachmentHosts;
    expect(defaults).toEqual(expect.arrayContaining(['files.slack.com', 'api.telegram.org', 'smba.trafficmanager.net']));
    // messaging-a media: the media URL on the REST API, and the hosts its redirect leads to.
    expect(defaults).toEqual(expect.arrayContaining(['api.twilio.com', 'mms.twiliocdn.com', 'media.twiliocdn.com', 's3-external-1.amazonaws.com']));
    // enterprise-chat: connector attachments and inline images, and shared files.
    expect(defaults).toEqual(expect.arrayContaining(['*.botframework.com', '*.asm.skype.com', '*.sharepoint.com']));
    expect(defaults.some((h) => /^(127\.|localhost|\[)/.test(h))).toBe(false);
    expect(loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: ' Files.Example.com , 127.0.0.1:8080,*.cdn.example.com,[::1]:9000' }).channels.attachmentHosts).toEqual(['files.example.com', '127.0.0.1:8080', '*.cdn.example.com', '[::1]:9000']);
    expect(() => loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: 'https://files.example.com/' })).toThrow(/ATTACHMENT_HOSTS: must be a comma-separated list of host\[:port\]/);
    expect(() => loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: 'user@files.example.com' })).toThrow(/ATTACHMENT_HOSTS/);
  });

  it('checks the LLM provider settings: a hosted provider needs its key, openai-compatible its URL and model', () => {
    const DATA_DIR = tmp();
    expect(loadConfig({ DATA_DIR }).llm).toMatchObject({ provider: 'offline', timeoutMs: 60_000 });
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai' })).toThrow(/LLM_API_KEY: required with LLM_PROVIDER=openai/);
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'http://127.0.0.1:1/v1' })).toThrow(/LLM_MODEL/);
    expect(() => loadConfig({ DATA_DIR, LLM_TIMEOUT_MS: '0' })).toThrow(/LLM_TIMEOUT_MS/);
    const c = loadConfig({ DATA_DIR, LLM_PROVIDER: 'anthropic', LLM_API_KEY: 'k', LLM_TIMEOUT_MS: '5000' });
    expect(c.llm).toMatchObject({ provider: 'anthropic', apiKey: 'k', timeoutMs: 5000 });
  });

  it('takes plan_per_rate by default and refuses plan_overrides without the premium licence (spec 2.8)', () => {
    const DATA_DIR = tmp();
    expect(loadConfig({ DATA_DIR }).billing).toMatchObject({ graceDays: 7, pricingStrategy: 'plan_per_rate' });
    expect(() => loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'plan_overrides' })).toThrow(/plan_overrides needs a premium licence/);
    expect(loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'plan_overrides', BILLING_PREMIUM_LICENSE: 'lic-1' }).billing.pricingStrategy).toBe('plan_overrides');
    expect(() => loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'tiers' })).toThrow(/BILLING_PRICING_STRATEGY/);
  });

  it('takes the manual payment provider by default; Stripe needs its key, and its webhook secret in production', () => {
    const DATA_DIR = tmp();
    expect(loadConfig({ DATA_DIR }).billing).toMatchObject({ provider: 'manual', stripe: { secretKey: undefined, webhookSecret: undefined } });
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'paypal' })).toThrow(/BILLING_PROVIDER/);
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY: required with BILLING_PROVIDER=stripe/);
    // Outside production the webhook secret may wait: the Stripe webhook then refuses every call.
    expect(loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_API_BASE_URL: 'http://127.0.0.1:9/' }).billing).toMatchObject({
      provider: 'stripe',
      stripe: { secretKey: 'sk_test_1', webhookSecret: undefined, apiBaseUrl: 'http://127.0.0.1:9' },
    });
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', BILLING_PRICING_STRATEGY: 'plan_overrides', BILLING_PREMIUM_LICENSE: 'lic-1' })).toThrow(/plan_overrides is not offered with BILLING_PROVIDER=stripe/);
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const production = { APP_ENV: 'production', DATA_DIR, ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_PRIVATE_KEY: pair.privateKey, JWT_PUBLIC_KEY: pair.publicKey, BILLING_PROVIDER: 'stripe' };
    expect(() => load(production)).toThrow(ConfigError);
    expect(() => load(production)).toThrow(/STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: required with BILLING_PROVIDER=stripe in production/);
    expect(() => load({ ...production, STRIPE_SECRET_KEY: 'sk_live_1' })).toThrow(/STRIPE_WEBHOOK_SECRET: required/);
    expect(load({ ...production, STRIPE_SECRET_KEY: 'sk_live_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' }).billing.provider).toBe('stripe');
  });

  it('refuses to boot in production without ENCRYPTION_KEY or the JWT keys (spec 5.7)', () => {
    const err = (() => {
      try {
        loadConfig({ APP_ENV: 'production', DATA_DIR: tmp() });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/APP_ENV=production refuses to boot without ENCRYPTION_KEY, JWT_PRIVATE_KEY, JWT_PUBLIC_KEY/);
    const withKey = () => loadConfig({ APP_ENV: 'production', DATA_DIR: tmp(), ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    expect(withKey).toThrow(/JWT_PRIVATE_KEY, JWT_PUBLIC_KEY/);
  });

  it('never seeds demo data in production', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const c = loadConfig({
      APP_ENV: 'production',
      DATA_DIR: tmp(),
      SEED_DEMO_DATA: 'true',
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      JWT_PRIVATE_KEY: pair.privateKey,
      JWT_PUBLIC_KEY: pair.publicKey,
    });
    expect(c.seedDemoData).toBe(false);
    expect(c.keys.source).toEqual({ encryption: 'env', jwt: 'env' });
  });

  it('generates missing keys once into DATA_DIR with mode 0600 and reuses them', () => {
    const dir = tmp();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.keys.source).toEqual({ encryption: 'generated', jwt: 'generated' });
    for (const f of ['encryption.key', 'jwt-private.pem', 'jwt-public.pem']) {
      expect(statSync(join(dir, 'keys', f)).mode & 0o777).toBe(0o600);
    }
    const second = loadConfig({ DATA_DIR: dir });
    expect(second.keys.source).toEqual({ encryption: 'data-dir', jwt: 'data-dir' });
    expect(second.keys.encryptionKey.equals(first.keys.encryptionKey)).toBe(true);
    expect(second.keys.jwtPrivateKeyPem).toBe(first.keys.jwtPrivateKeyPem);
    expect(readFileSync(join(dir, 'keys', 'jwt-public.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
  });

  it('takes the rotated-out encryption keys of ENCRYPTION_KEY_PREVIOUS, each checked', () => {
    const [a, b] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    const c = loadConfig({ DATA_DIR: tmp(), ENCRYPTION_KEY_PREVIOUS: `${a}, ${b}` });
    expect(c.keys.previousEncryptionKeys.map((k) => k.toString('base64'))).toEqual([a, b]);
    expect(loadConfig({ DATA_DIR: tmp() }).keys.previousEncryptionKeys).toEqual([]);
    expect(() => loadConfig({ DATA_DIR: tmp(), ENCRYPTION_KEY_PREVIOUS: `${a},c2hvcnQ=` })).toThrow(/ENCRYPTION_KEY_PREVIOUS: must be a comma-separated list of 32-byte base64 keys/);
  });

  it('keeps a private key another instance has just written, and derives its public key', () => {
    const dir = tmp();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    mkdirSync(join(dir, 'keys'), { recursive: true });
    // The other instance has written its private key, not yet its public one.
    writeFileSync(join(dir, 'keys', 'jwt-private.pem'), other.privateKey);
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.keys.jwtPrivateKeyPem).toBe(other.privateKey);
    expect(c.keys.jwtPublicKeyPem).toBe(other.publicKey);
    expect(c.keys.source.jwt).toBe('data-dir');
    expect(readFileSync(join(dir, 'keys', 'jwt-private.pem'), 'utf8')).toBe(other.privateKey);
    expect(readdirSync(join(dir, 'keys')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
