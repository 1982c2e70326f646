import { z } from 'zod';
import { flag, intFrom, oneOf, optionalString, optionalUrl } from './env-fields.js';

/**
 * The platform's environment variables (API-MAP.md "Configuration"): network, storage, keys, mail
 * transport, request limits, logging. Each module reads its own variables in `<domain>.config.ts`.
 */
export const EnvSchema = z.object({
  PORT: intFrom(3000, 0).pipe(z.number().max(65535)),
  /** Unset: 0.0.0.0 in production, 127.0.0.1 elsewhere (config.ts). */
  HOST: optionalString,
  /** Unset means production: a development start says so (`npm start` does). */
  APP_ENV: oneOf(['development', 'test', 'production'], 'production'),
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
  THROTTLE_ORG_PER_MINUTE: intFrom(6000, 1),
  THROTTLE_IP_PER_MINUTE: intFrom(1200, 1),
  METRICS_TOKEN: optionalString,
  TRUST_PROXY: flag,
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SEED_DEMO_DATA: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
});

export type Env = z.input<typeof EnvSchema>;
export type ParsedEnv = z.output<typeof EnvSchema>;
