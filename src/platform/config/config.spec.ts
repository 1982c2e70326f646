import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../../test/support/temp-dirs.js';
import { ConfigError, loadConfig as load } from './config.js';

/** A development start (APP_ENV unset means production), unless the source says otherwise. */
const loadConfig = (source: Record<string, string | undefined>) => load({ APP_ENV: 'development', ...source });

describe('loadConfig', () => {
  const tmp = tempDirs('cos-config-');

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
      limits: { throttleOrgPerMinute: 6000, throttleIpPerMinute: 1200 },
      seedDemoData: true,
    });
  });

  it('stops on a bad value with a message naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), PORT: 'eighty' })).toThrow(/PORT: must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: tmp(), THROTTLE_ORG_PER_MINUTE: '0' })).toThrow(/THROTTLE_ORG_PER_MINUTE/);
    expect(() => loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATA_DIR: tmp(), APP_ENV: 'staging' })).toThrow(/APP_ENV/);
    expect(() => loadConfig({ DATA_DIR: tmp(), ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(/ENCRYPTION_KEY: must be 32 bytes/);
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
