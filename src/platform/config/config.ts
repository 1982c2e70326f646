import { resolve } from 'node:path';
import { EnvSchema, type ParsedEnv } from './config.schema.js';
import { ConfigError } from './config-error.js';
import { loadKeys, type KeyMaterial } from './keys.js';

export { ConfigError };

export interface AppConfig {
  readonly env: ParsedEnv['APP_ENV'];
  readonly isProduction: boolean;
  readonly port: number;
  readonly host: string;
  /** Take the client address from X-Forwarded-For (only behind a proxy that overwrites it). */
  readonly trustProxy: boolean;
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly keys: KeyMaterial;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly llm: {
    provider: ParsedEnv['LLM_PROVIDER'];
    model?: string;
    apiKey?: string;
    baseUrl?: string;
    /** Each model call is abandoned (and recorded as failed) after this long. */
    timeoutMs: number;
  };
  readonly limits: {
    orgMessageQuotaPerHour: number;
    throttleOrgPerMinute: number;
    throttleIpPerMinute: number;
    inboundQueueMaxDepth: number;
    backpressureRetryAfterS: number;
  };
  /** When work a dead instance left is taken over (docs/operations.md, faults). */
  readonly recovery: {
    /** A running agent turn is held this long; past it the sweeper may run it again. */
    turnLeaseMs: number;
    /** An inbound event being processed is held this long; past it the sweep may take it again. */
    inboundLeaseMs: number;
    /** A turn or inbound event still queued this long lost its request or job: the sweeper runs it. */
    strandedAfterMs: number;
  };
  readonly bootstrapToken: string | undefined;
  /** Production: `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>`, and is hidden (404) without one. */
  readonly metricsToken: string | undefined;
  readonly channels: {
    chatASigningSecret?: string;
    messagingAAuthToken?: string;
    messagingANumberPool: string[];
    emailInboundSigningSecret?: string;
    /** The Mailgun webhook signing key: the inbound Route door (`/channels/email/mailgun/mime`) refuses everything without it. */
    mailgunWebhookSigningKey?: string;
    enterpriseChatAppId?: string;
    enterpriseChatOpenIdMetadataUrl?: string;
    enterpriseChatIssuers: string[];
    /** Where inbound attachments may be fetched from: `host[:port]` (`*.` matches subdomains). */
    attachmentHosts: string[];
  };
  /** An engagement with the bot (chat-a, enterprise-chat, messaging-b groups) lasts this long after the last message. */
  readonly channelEngagementTtlHours: number;
  /** The vendor APIs replies are sent to, each behind a circuit breaker. */
  readonly channelApis: {
    chatAApiBaseUrl?: string;
    messagingAApiBaseUrl?: string;
    messagingBApiBaseUrl?: string;
    enterpriseChatAppId?: string;
    enterpriseChatAppPassword?: string;
    enterpriseChatTokenUrl?: string;
    enterpriseChatTokenScope?: string;
    breakerResetMs: number;
  };
  readonly workspaceDomain: string;
  /** The environment-level gate: provision mailboxes on assignment ("Provision now" bypasses it). */
  readonly mailbox: { autoProvision: boolean; retryDelayS: number };
  readonly billing: {
    webhookSecret?: string;
    graceDays: number;
    /** How the provider adapter maps rates to plans (spec 2.8); plan_overrides needs the premium licence. */
    pricingStrategy: ParsedEnv['BILLING_PRICING_STRATEGY'];
    premiumLicense?: string;
    /** The payment provider adapter (docs/billing.md "Payment provider adapter"). */
    provider: ParsedEnv['BILLING_PROVIDER'];
    /** With `provider: 'stripe'`: the API key, the webhook signing secret, and (tests only) where its API is. */
    stripe: { secretKey?: string; webhookSecret?: string; apiBaseUrl?: string };
  };
  /** The external tracing tool the nightly cost reconciliation reads (analytics only; unset: skipped). */
  readonly tracing: { baseUrl?: string; publicKey?: string; secretKey?: string };
  readonly logLevel: ParsedEnv['LOG_LEVEL'];
  readonly seedDemoData: boolean;
}

/**
 * The vendors' public file hosts (docs/configuration.md): chat-a files, messaging-a media (the
 * media URL on its REST API, which redirects to its media CDN, or to its storage for media from
 * before HTTP authentication was enforced on media), messaging-b Bot API file downloads,
 * enterprise-chat connector attachments, inline images and shared files.
 */
export const DEFAULT_ATTACHMENT_HOSTS: readonly string[] = [
  'files.slack.com',
  'api.twilio.com',
  'mms.twiliocdn.com',
  'media.twiliocdn.com',
  's3-external-1.amazonaws.com',
  'api.telegram.org',
  'smba.trafficmanager.net',
  '*.botframework.com',
  '*.asm.skype.com',
  '*.sharepoint.com',
];

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Builds the one configuration object from the environment. A bad value stops the boot with a
 * message naming the variable; production refuses to start without its secrets (spec 5.7).
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const isProduction = e.APP_ENV === 'production';
  if (isProduction) {
    const missing = (['ENCRYPTION_KEY', 'JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY'] as const).filter((k) => !e[k]);
    if (missing.length > 0) {
      throw new ConfigError(
        `APP_ENV=production refuses to boot without ${missing.join(', ')}: set ${missing.length > 1 ? 'them' : 'it'} in the environment (keys are only generated outside production).`,
      );
    }
  }
  if ((e.JWT_PRIVATE_KEY === undefined) !== (e.JWT_PUBLIC_KEY === undefined)) {
    throw new ConfigError('Invalid configuration:\n  JWT_PRIVATE_KEY / JWT_PUBLIC_KEY: set both or neither');
  }
  if (e.BILLING_PRICING_STRATEGY === 'plan_overrides' && !e.BILLING_PREMIUM_LICENSE) {
    throw new ConfigError('Invalid configuration:\n  BILLING_PRICING_STRATEGY: plan_overrides needs a premium licence of the billing provider (BILLING_PREMIUM_LICENSE); use plan_per_rate');
  }
  const billingProblem = billingProviderProblem(e, isProduction);
  if (billingProblem) throw new ConfigError(`Invalid configuration:\n  ${billingProblem}`);
  const llmProblem = llmConfigProblem(e);
  if (llmProblem) throw new ConfigError(`Invalid configuration:\n  ${llmProblem}`);
  const dataDir = resolve(e.DATA_DIR);
  const keys = loadKeys({
    dataDir,
    allowGenerate: !isProduction,
    encryptionKey: e.ENCRYPTION_KEY,
    previousEncryptionKeys: e.ENCRYPTION_KEY_PREVIOUS,
    jwtPrivateKey: e.JWT_PRIVATE_KEY,
    jwtPublicKey: e.JWT_PUBLIC_KEY,
    previousJwtPublicKeys: e.JWT_PUBLIC_KEY_PREVIOUS,
  });
  return {
    env: e.APP_ENV,
    isProduction,
    port: e.PORT,
    // Outside production the service is reachable from this machine only, unless told otherwise.
    host: e.HOST ?? (isProduction ? '0.0.0.0' : '127.0.0.1'),
    trustProxy: e.TRUST_PROXY,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    keys,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    llm: { provider: e.LLM_PROVIDER, model: e.LLM_MODEL, apiKey: e.LLM_API_KEY, baseUrl: e.LLM_BASE_URL, timeoutMs: e.LLM_TIMEOUT_MS },
    limits: {
      orgMessageQuotaPerHour: e.ORG_MESSAGE_QUOTA_PER_HOUR,
      throttleOrgPerMinute: e.THROTTLE_ORG_PER_MINUTE,
      throttleIpPerMinute: e.THROTTLE_IP_PER_MINUTE,
      inboundQueueMaxDepth: e.INBOUND_QUEUE_MAX_DEPTH,
      backpressureRetryAfterS: e.BACKPRESSURE_RETRY_AFTER_S,
    },
    recovery: { turnLeaseMs: e.TURN_LEASE_MS, inboundLeaseMs: e.INBOUND_LEASE_MS, strandedAfterMs: e.STRANDED_AFTER_MS },
    bootstrapToken: e.BOOTSTRAP_TOKEN,
    metricsToken: e.METRICS_TOKEN,
    channels: {
      chatASigningSecret: e.CHAT_A_SIGNING_SECRET,
      messagingAAuthToken: e.MESSAGING_A_AUTH_TOKEN,
      messagingANumberPool: list(e.MESSAGING_A_NUMBER_POOL),
      emailInboundSigningSecret: e.EMAIL_INBOUND_SIGNING_SECRET,
      mailgunWebhookSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY,
      enterpriseChatAppId: e.ENTERPRISE_CHAT_APP_ID,
      enterpriseChatOpenIdMetadataUrl: e.ENTERPRISE_CHAT_OPENID_METADATA_URL,
      enterpriseChatIssuers: list(e.ENTERPRISE_CHAT_ISSUERS),
      attachmentHosts: e.ATTACHMENT_HOSTS ? list(e.ATTACHMENT_HOSTS.toLowerCase()) : [...DEFAULT_ATTACHMENT_HOSTS],
    },
    channelEngagementTtlHours: e.CHANNEL_ENGAGEMENT_TTL_HOURS,
    channelApis: {
      chatAApiBaseUrl: e.CHAT_A_API_BASE_URL?.replace(/\/+$/, ''),
      messagingAApiBaseUrl: e.MESSAGING_A_API_BASE_URL?.replace(/\/+$/, ''),
      messagingBApiBaseUrl: e.MESSAGING_B_API_BASE_URL?.replace(/\/+$/, ''),
      enterpriseChatAppId: e.ENTERPRISE_CHAT_APP_ID,
      enterpriseChatAppPassword: e.ENTERPRISE_CHAT_APP_PASSWORD,
      enterpriseChatTokenUrl: e.ENTERPRISE_CHAT_TOKEN_URL,
      enterpriseChatTokenScope: e.ENTERPRISE_CHAT_TOKEN_SCOPE,
      breakerResetMs: e.CHANNEL_BREAKER_RESET_MS,
    },
    workspaceDomain: e.WORKSPACE_DOMAIN,
    mailbox: { autoProvision: e.MAILBOX_AUTO_PROVISION, retryDelayS: e.MAILBOX_RETRY_DELAY_S },
    billing: {
      webhookSecret: e.BILLING_WEBHOOK_SECRET,
      graceDays: e.BILLING_GRACE_DAYS,
      pricingStrategy: e.BILLING_PRICING_STRATEGY,
      premiumLicense: e.BILLING_PREMIUM_LICENSE,
      provider: e.BILLING_PROVIDER,
      stripe: { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, apiBaseUrl: e.STRIPE_API_BASE_URL?.replace(/\/+$/, '') },
    },
    tracing: { baseUrl: e.TRACING_BASE_URL?.replace(/\/+$/, ''), publicKey: e.TRACING_PUBLIC_KEY, secretKey: e.TRACING_SECRET_KEY },
    logLevel: e.LOG_LEVEL,
    seedDemoData: !isProduction && (e.SEED_DEMO_DATA ?? true),
  };
}

/**
 * Stripe needs its API key everywhere (the adapter can do nothing without it) and, in production,
 * its webhook signing secret (elsewhere the Stripe webhook then refuses every call). It prices per
 * rate only: `plan_overrides` (a price override per subscription) is not offered with it.
 */
function billingProviderProblem(e: ParsedEnv, isProduction: boolean): string | undefined {
  if (e.BILLING_PROVIDER !== 'stripe') return undefined;
  const required = isProduction ? (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) : (['STRIPE_SECRET_KEY'] as const);
  const missing = required.filter((k) => !e[k]);
  if (missing.length > 0) return `${missing.join(', ')}: required with BILLING_PROVIDER=stripe${isProduction ? ' in production' : ''}`;
  if (e.BILLING_PRICING_STRATEGY === 'plan_overrides') return 'BILLING_PRICING_STRATEGY: the Stripe adapter prices per rate (plan_per_rate); plan_overrides is not offered with BILLING_PROVIDER=stripe';
  return undefined;
}

/** A hosted provider needs its key; an openai-compatible server needs its URL and a model name. */
function llmConfigProblem(e: ParsedEnv): string | undefined {
  switch (e.LLM_PROVIDER) {
    case 'openai':
    case 'anthropic':
      return e.LLM_API_KEY ? undefined : `LLM_API_KEY: required with LLM_PROVIDER=${e.LLM_PROVIDER}`;
    case 'openai-compatible':
      if (!e.LLM_BASE_URL) return 'LLM_BASE_URL: required with LLM_PROVIDER=openai-compatible';
      return e.LLM_MODEL ? undefined : 'LLM_MODEL: required with LLM_PROVIDER=openai-compatible';
    default:
      return undefined;
  }
}
