import { resolve } from 'node:path';
import { EnvSchema, type ParsedEnv } from './config.schema.js';
import { ConfigError } from './config-error.js';
import { loadKeys, type KeyMaterial } from './keys.js';
import { configError, issueLines, type ConfigSlice, type Environment } from './slice.js';

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
  readonly limits: {
    throttleOrgPerMinute: number;
    throttleIpPerMinute: number;
  };
  /** Production: `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>`, and is hidden (404) without one. */
  readonly metricsToken: string | undefined;
  readonly logLevel: ParsedEnv['LOG_LEVEL'];
  readonly seedDemoData: boolean;
  /** The variables as given: each module reads its own slice from them (`defineConfigSlice`). */
  readonly environment: Environment;
}

/**
 * Builds the platform configuration from the environment and checks the modules' slices given
 * (the composition's list), so a bad value stops the boot before anything starts, with a message
 * naming the variable; production refuses to start without its secrets (spec 5.7).
 */
export function loadConfig(source: Record<string, string | undefined> = process.env, slices: readonly ConfigSlice<unknown>[] = []): AppConfig {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) throw configError(issueLines(parsed.error));
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
  const environment: Environment = Object.freeze({ ...source });
  const problems = slices.flatMap((slice) => {
    const result = slice.parse(environment, { isProduction });
    return result.ok ? [] : result.problems;
  });
  if (problems.length > 0) throw configError(problems);
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
    limits: { throttleOrgPerMinute: e.THROTTLE_ORG_PER_MINUTE, throttleIpPerMinute: e.THROTTLE_IP_PER_MINUTE },
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    seedDemoData: !isProduction && (e.SEED_DEMO_DATA ?? true),
    environment,
  };
}
