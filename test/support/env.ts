import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * The environment a test app starts from: nothing of the developer's shell leaks in except the
 * database and Redis the run was pointed at.
 */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    APP_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    HOST: '127.0.0.1',
    ...overrides,
  };
}

/** What a production start needs besides APP_ENV (spec 5.7): the encryption key and a JWT key pair, fresh per call. */
export function productionEnv(extra: Record<string, string> = {}): Record<string, string> {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  return { APP_ENV: 'production', ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_PRIVATE_KEY: pair.privateKey, JWT_PUBLIC_KEY: pair.publicKey, ...extra };
}
