import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

export interface KeyMaterial {
  /** 32 bytes for AES-256-GCM. */
  readonly encryptionKey: Buffer;
  /** Keys rotated out (ENCRYPTION_KEY_PREVIOUS): secrets they sealed can still be opened. */
  readonly previousEncryptionKeys: Buffer[];
  readonly jwtPrivateKeyPem: string;
  readonly jwtPublicKeyPem: string;
  /** Other public keys whose tokens are still accepted (JWT_PUBLIC_KEY_PREVIOUS): a key pair being rotated. */
  readonly previousJwtPublicKeyPems: string[];
  /** Where each key came from, for the start-up log (never the key itself). */
  readonly source: { encryption: 'env' | 'generated' | 'data-dir'; jwt: 'env' | 'generated' | 'data-dir' };
}

interface LoadKeysInput {
  dataDir: string;
  allowGenerate: boolean;
  encryptionKey?: string;
  previousEncryptionKeys?: string;
  jwtPrivateKey?: string;
  jwtPublicKey?: string;
  previousJwtPublicKeys?: string;
}

const pem = (v: string) => v.replace(/\\n/g, '\n');

/**
 * Keys come from the environment; outside production a missing key is generated once into
 * DATA_DIR/keys (mode 0600) and reused on the next start.
 */
export function loadKeys(input: LoadKeysInput): KeyMaterial {
  const dir = join(input.dataDir, 'keys');
  const ensureDir = () => mkdirSync(dir, { recursive: true, mode: 0o700 });
  const writeSecret = (file: string, content: string) => {
    ensureDir();
    writeFileSync(file, content, { mode: 0o600 });
    chmodSync(file, 0o600);
  };
  // Instances started together on one DATA_DIR: the first key written wins and the others read
  // it (a link fails when the file exists, and never shows a half-written file).
  const createSecret = (file: string, content: string): string => {
    const draft = `${file}.${process.pid}.tmp`;
    writeSecret(draft, content);
    try {
      linkSync(draft, file);
      return content;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return readFileSync(file, 'utf8');
    } finally {
      rmSync(draft, { force: true });
    }
  };

  let encryptionKey: Buffer;
  let encSource: KeyMaterial['source']['encryption'];
  if (input.encryptionKey) {
    encryptionKey = Buffer.from(input.encryptionKey, 'base64');
    encSource = 'env';
  } else {
    if (!input.allowGenerate) throw new ConfigError('ENCRYPTION_KEY is required');
    const file = join(dir, 'encryption.key');
    if (existsSync(file)) {
      encryptionKey = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      encSource = 'data-dir';
    } else {
      const fresh = randomBytes(32).toString('base64');
      const kept = createSecret(file, fresh);
      encryptionKey = Buffer.from(kept.trim(), 'base64');
      encSource = kept === fresh ? 'generated' : 'data-dir';
    }
    if (encryptionKey.length !== 32) throw new ConfigError(`${file} does not hold a 32-byte base64 key`);
  }

  let jwtPrivateKeyPem: string;
  let jwtPublicKeyPem: string;
  let jwtSource: KeyMaterial['source']['jwt'];
  if (input.jwtPrivateKey && input.jwtPublicKey) {
    jwtPrivateKeyPem = pem(input.jwtPrivateKey);
    jwtPublicKeyPem = pem(input.jwtPublicKey);
    jwtSource = 'env';
  } else {
    if (!input.allowGenerate) throw new ConfigError('JWT_PRIVATE_KEY and JWT_PUBLIC_KEY are required');
    const privFile = join(dir, 'jwt-private.pem');
    const pubFile = join(dir, 'jwt-public.pem');
    if (existsSync(privFile) && existsSync(pubFile)) {
      jwtPrivateKeyPem = readFileSync(privFile, 'utf8');
      jwtPublicKeyPem = readFileSync(pubFile, 'utf8');
      jwtSource = 'data-dir';
    } else {
      const pair = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      jwtPrivateKeyPem = createSecret(privFile, pair.privateKey);
      if (jwtPrivateKeyPem === pair.privateKey) {
        writeSecret(pubFile, pair.publicKey);
        jwtPublicKeyPem = pair.publicKey;
        jwtSource = 'generated';
      } else {
        // Another process's key: its public half may not be written yet, so derive it.
        jwtPublicKeyPem = createPublicKey(jwtPrivateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
        jwtSource = 'data-dir';
      }
    }
  }
  const previousEncryptionKeys = (input.previousEncryptionKeys ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => Buffer.from(k, 'base64'));
  const previousJwtPublicKeyPems = pem(input.previousJwtPublicKeys ?? '').match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
  if (input.previousJwtPublicKeys && previousJwtPublicKeyPems.length === 0) throw new ConfigError('Invalid configuration:\n  JWT_PUBLIC_KEY_PREVIOUS: must hold one or more PEM public keys (SPKI)');
  return { encryptionKey, previousEncryptionKeys, jwtPrivateKeyPem, jwtPublicKeyPem, previousJwtPublicKeyPems, source: { encryption: encSource, jwt: jwtSource } };
}
