import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/support/temp-dirs.js';
import { CONFIG_SLICES } from './app.config.js';
import { agentConfig } from './modules/agent/index.js';
import { billingConfig } from './modules/billing/index.js';
import { channelsConfig } from './modules/channels/index.js';
import { conversationsConfig } from './modules/conversations/index.js';
import { orgsConfig } from './modules/orgs/index.js';
import { ConfigError, loadConfig as loadPlatform, type AppConfig } from './platform/config/config.js';

/** The boot's check: the platform and every module's slice. */
const load = (source: Record<string, string | undefined>) => loadPlatform(source, CONFIG_SLICES);
/** A development start (APP_ENV unset means production), unless the source says otherwise. */
const loadConfig = (source: Record<string, string | undefined>) => load({ APP_ENV: 'development', ...source });
const recovery = (c: AppConfig) => {
  const { turnLeaseMs, strandedAfterMs } = conversationsConfig.read(c).recovery;
  const { inboundLeaseMs, strandedAfterMs: inboundStrandedAfterMs } = channelsConfig.read(c).recovery;
  expect(inboundStrandedAfterMs).toBe(strandedAfterMs);
  return { turnLeaseMs, inboundLeaseMs, strandedAfterMs };
};

describe("the modules' configuration slices", () => {
  const tmp = tempDirs('cos-config-');

  it('applies the defaults of API-MAP.md', () => {
    const c = loadConfig({ DATA_DIR: tmp() });
    expect(orgsConfig.read(c).workspaceDomain).toBe('workspace.example.com');
    expect(conversationsConfig.read(c).limits).toEqual({ orgMessageQuotaPerHour: 1000 });
    expect(channelsConfig.read(c).limits).toEqual({ inboundQueueMaxDepth: 10000, backpressureRetryAfterS: 30, chatAWebhookPerMinute: 1000 });
    expect(billingConfig.read(c)).toMatchObject({ graceDays: 7 });
    expect(agentConfig.read(c).llm.provider).toBe('offline');
  });

  it('stops the boot on a bad value of any module with a message naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), BILLING_GRACE_DAYS: 'a week' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: tmp(), BILLING_GRACE_DAYS: 'a week' })).toThrow(/Invalid configuration:\n {2}BILLING_GRACE_DAYS: must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: tmp(), ORG_MESSAGE_QUOTA_PER_HOUR: '0', CHANNEL_BREAKER_RESET_MS: 'soon' })).toThrow(/ORG_MESSAGE_QUOTA_PER_HOUR[\s\S]*CHANNEL_BREAKER_RESET_MS/);
    // A slice read without the boot's check (the Nest provider) refuses the same way.
    const unchecked = loadPlatform({ APP_ENV: 'development', DATA_DIR: tmp(), MAILBOX_RETRY_DELAY_S: '-1' });
    expect(() => CONFIG_SLICES.map((slice) => slice.read(unchecked))).toThrow(/MAILBOX_RETRY_DELAY_S: must be a whole number/);
  });

  it("takes over a dead instance's work after the recovery defaults, or the configured times", () => {
    expect(recovery(loadConfig({ DATA_DIR: tmp() }))).toEqual({ turnLeaseMs: 180_000, inboundLeaseMs: 300_000, strandedAfterMs: 30_000 });
    const c = loadConfig({ DATA_DIR: tmp(), TURN_LEASE_MS: '6000', INBOUND_LEASE_MS: '8000', STRANDED_AFTER_MS: '3000' });
    expect(recovery(c)).toEqual({ turnLeaseMs: 6000, inboundLeaseMs: 8000, strandedAfterMs: 3000 });
    expect(() => loadConfig({ DATA_DIR: tmp(), TURN_LEASE_MS: '10' })).toThrow(/TURN_LEASE_MS/);
  });

  it("lists the vendors' public file hosts for attachments unless ATTACHMENT_HOSTS says otherwise", () => {
    const DATA_DIR = tmp();
    const defaults = channelsConfig.read(loadConfig({ DATA_DIR })).inbound.attachmentHosts;
    expect(defaults).toEqual(expect.arrayContaining(['files.slack.com', 'api.telegram.org', 'smba.trafficmanager.net']));
    // messaging-a media: the media URL on the REST API, and the hosts its redirect leads to.
    expect(defaults).toEqual(expect.arrayContaining(['api.twilio.com', 'mms.twiliocdn.com', 'media.twiliocdn.com', 's3-external-1.amazonaws.com']));
    // enterprise-chat: connector attachments and inline images, and shared files.
    expect(defaults).toEqual(expect.arrayContaining(['*.botframework.com', '*.asm.skype.com', '*.sharepoint.com']));
    expect(defaults.some((h) => /^(127\.|localhost|\[)/.test(h))).toBe(false);
    expect(channelsConfig.read(loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: ' Files.Example.com , 127.0.0.1:8080,*.cdn.example.com,[::1]:9000' })).inbound.attachmentHosts).toEqual([
      'files.example.com',
      '127.0.0.1:8080',
      '*.cdn.example.com',
      '[::1]:9000',
    ]);
    expect(() => loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: 'https://files.example.com/' })).toThrow(/ATTACHMENT_HOSTS: must be a comma-separated list of host\[:port\]/);
    expect(() => loadConfig({ DATA_DIR, ATTACHMENT_HOSTS: 'user@files.example.com' })).toThrow(/ATTACHMENT_HOSTS/);
  });

  it('checks the LLM provider settings: a hosted provider needs its key, openai-compatible its URL and model', () => {
    const DATA_DIR = tmp();
    expect(agentConfig.read(loadConfig({ DATA_DIR })).llm).toMatchObject({ provider: 'offline', timeoutMs: 60_000 });
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai' })).toThrow(/LLM_API_KEY: required with LLM_PROVIDER=openai/);
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ DATA_DIR, LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: 'http://127.0.0.1:1/v1' })).toThrow(/LLM_MODEL/);
    expect(() => loadConfig({ DATA_DIR, LLM_TIMEOUT_MS: '0' })).toThrow(/LLM_TIMEOUT_MS/);
    const c = loadConfig({ DATA_DIR, LLM_PROVIDER: 'anthropic', LLM_API_KEY: 'k', LLM_TIMEOUT_MS: '5000' });
    expect(agentConfig.read(c).llm).toMatchObject({ provider: 'anthropic', apiKey: 'k', timeoutMs: 5000 });
  });

  it('takes plan_per_rate by default and refuses plan_overrides without the premium licence (spec 2.8)', () => {
    const DATA_DIR = tmp();
    expect(billingConfig.read(loadConfig({ DATA_DIR }))).toMatchObject({ graceDays: 7, pricingStrategy: 'plan_per_rate' });
    expect(() => loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'plan_overrides' })).toThrow(/plan_overrides needs a premium licence/);
    expect(billingConfig.read(loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'plan_overrides', BILLING_PREMIUM_LICENSE: 'lic-1' })).pricingStrategy).toBe('plan_overrides');
    expect(() => loadConfig({ DATA_DIR, BILLING_PRICING_STRATEGY: 'tiers' })).toThrow(/BILLING_PRICING_STRATEGY/);
  });

  it('takes the manual payment provider by default; Stripe needs its key, and its webhook secret in production', () => {
    const DATA_DIR = tmp();
    expect(billingConfig.read(loadConfig({ DATA_DIR }))).toMatchObject({ provider: 'manual', stripe: { secretKey: undefined, webhookSecret: undefined } });
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'paypal' })).toThrow(/BILLING_PROVIDER/);
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe' })).toThrow(/STRIPE_SECRET_KEY: required with BILLING_PROVIDER=stripe/);
    // Outside production the webhook secret may wait: the Stripe webhook then refuses every call.
    expect(billingConfig.read(loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_API_BASE_URL: 'http://127.0.0.1:9/' }))).toMatchObject({
      provider: 'stripe',
      stripe: { secretKey: 'sk_test_1', webhookSecret: undefined, apiBaseUrl: 'http://127.0.0.1:9' },
    });
    expect(() => loadConfig({ DATA_DIR, BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', BILLING_PRICING_STRATEGY: 'plan_overrides', BILLING_PREMIUM_LICENSE: 'lic-1' })).toThrow(
      /plan_overrides is not offered with BILLING_PROVIDER=stripe/,
    );
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const production = {
      APP_ENV: 'production',
      DATA_DIR,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      JWT_PRIVATE_KEY: pair.privateKey,
      JWT_PUBLIC_KEY: pair.publicKey,
      BILLING_PROVIDER: 'stripe',
    };
    expect(() => load(production)).toThrow(ConfigError);
    expect(() => load(production)).toThrow(/STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: required with BILLING_PROVIDER=stripe in production/);
    expect(() => load({ ...production, STRIPE_SECRET_KEY: 'sk_live_1' })).toThrow(/STRIPE_WEBHOOK_SECRET: required/);
    expect(billingConfig.read(load({ ...production, STRIPE_SECRET_KEY: 'sk_live_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' })).provider).toBe('stripe');
  });
});
