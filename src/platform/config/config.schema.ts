import { z } from 'zod';

const intFrom = (def: number, min = 0) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min))
    .optional()
    .transform((v) => v ?? def);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
  .pipe(z.url({ message: 'must be a URL' }).optional());

/** `host[:port]`, `*.domain[:port]` or `[ipv6][:port]`. */
const ATTACHMENT_HOST = /^(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The environment variables of API-MAP.md "Configuration", plus a few operational knobs. */
export const EnvSchema = z.object({
  PORT: intFrom(3000, 0).pipe(z.number().max(65535)),
  /** Unset: 0.0.0.0 in production, 127.0.0.1 elsewhere (config.ts). */
  HOST: optionalString,
  /** Unset means production: a development start says so (`npm start` does). */
  APP_ENV: z.enum(['development', 'test', 'production']).optional().transform((v) => v ?? 'production'),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: optionalUrl,
  DATA_DIR: optionalString.transform((v) => v ?? './data'),
  REDIS_URL: optionalUrl,
  REDIS_KEY_PREFIX: optionalString.transform((v) => v ?? 'cos:'),
  ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .optional(),
  ),
  ENCRYPTION_KEY_PREVIOUS: optionalString.pipe(
    z
      .string()
      .refine((v) => v.split(',').every((k) => Buffer.from(k.trim(), 'base64').length === 32), 'must be a comma-separated list of 32-byte base64 keys')
      .optional(),
  ),
  JWT_PRIVATE_KEY: optionalString,
  JWT_PUBLIC_KEY: optionalString,
  JWT_PUBLIC_KEY_PREVIOUS: optionalString,
  SMTP_URL: optionalUrl,
  MAIL_FROM: optionalString.transform((v) => v ?? 'Client Organization Service <no-reply@localhost>'),
  LLM_PROVIDER: z.enum(['offline', 'openai', 'anthropic', 'openai-compatible']).optional().transform((v) => v ?? 'offline'),
  LLM_MODEL: optionalString,
  LLM_API_KEY: optionalString,
  LLM_BASE_URL: optionalUrl,
  LLM_TIMEOUT_MS: intFrom(60_000, 1),
  ORG_MESSAGE_QUOTA_PER_HOUR: intFrom(1000, 1),
  THROTTLE_ORG_PER_MINUTE: intFrom(6000, 1),
  THROTTLE_IP_PER_MINUTE: intFrom(1200, 1),
  BOOTSTRAP_TOKEN: optionalString,
  METRICS_TOKEN: optionalString,
  INBOUND_QUEUE_MAX_DEPTH: intFrom(10000, 1),
  BACKPRESSURE_RETRY_AFTER_S: intFrom(30, 1),
  TURN_LEASE_MS: intFrom(180_000, 1000),
  INBOUND_LEASE_MS: intFrom(300_000, 1000),
  STRANDED_AFTER_MS: intFrom(30_000, 1000),
  CHAT_A_SIGNING_SECRET: optionalString,
  MESSAGING_A_AUTH_TOKEN: optionalString,
  MESSAGING_A_NUMBER_POOL: optionalString,
  EMAIL_INBOUND_SIGNING_SECRET: optionalString,
  MAILGUN_WEBHOOK_SIGNING_KEY: optionalString,
  ENTERPRISE_CHAT_APP_ID: optionalString,
  ENTERPRISE_CHAT_OPENID_METADATA_URL: optionalUrl,
  ENTERPRISE_CHAT_ISSUERS: optionalString,
  ATTACHMENT_HOSTS: optionalString.pipe(
    z
      .string()
      .refine((v) => v.split(',').every((h) => h.trim() === '' || ATTACHMENT_HOST.test(h.trim())), 'must be a comma-separated list of host[:port] (a leading *. matches subdomains)')
      .optional(),
  ),
  CHANNEL_ENGAGEMENT_TTL_HOURS: intFrom(24, 1),
  CHAT_A_API_BASE_URL: optionalUrl,
  MESSAGING_A_API_BASE_URL: optionalUrl,
  MESSAGING_B_API_BASE_URL: optionalUrl,
  ENTERPRISE_CHAT_APP_PASSWORD: optionalString,
  ENTERPRISE_CHAT_TOKEN_URL: optionalUrl,
  ENTERPRISE_CHAT_TOKEN_SCOPE: optionalString,
  CHANNEL_BREAKER_RESET_MS: intFrom(30_000, 100),
  WORKSPACE_DOMAIN: optionalString.transform((v) => v ?? 'workspace.example.com'),
  BILLING_WEBHOOK_SECRET: optionalString,
  BILLING_GRACE_DAYS: intFrom(7, 0),
  BILLING_PRICING_STRATEGY: z.enum(['plan_per_rate', 'plan_overrides']).optional().transform((v) => v ?? 'plan_per_rate'),
  BILLING_PREMIUM_LICENSE: optionalString,
  BILLING_PROVIDER: z.enum(['manual', 'stripe']).optional().transform((v) => v ?? 'manual'),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  /** Tests only: points the Stripe SDK at a loopback stand-in (its protocol, host and port). */
  STRIPE_API_BASE_URL: optionalUrl,
  TRACING_BASE_URL: optionalUrl,
  TRACING_PUBLIC_KEY: optionalString,
  TRACING_SECRET_KEY: optionalString,
  TRUST_PROXY: z.enum(['true', 'false']).optional().transform((v) => v === 'true'),
  MAILBOX_AUTO_PROVISION: z.enum(['true', 'false']).optional().transform((v) => v === 'true'),
  MAILBOX_RETRY_DELAY_S: intFrom(10, 0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional().transform((v) => v ?? 'info'),
  SEED_DEMO_DATA: z.enum(['true', 'false']).optional().transform((v) => (v === undefined ? undefined : v === 'true')),
});

export type Env = z.input<typeof EnvSchema>;
export type ParsedEnv = z.output<typeof EnvSchema>;
