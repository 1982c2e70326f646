import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config/config.js';
import { TokenService, VERIFIED_TOKENS_MAX, type TokenSubject } from './token.service.js';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const subject: TokenSubject = { userId: randomUUID(), email: 'a@example.com', name: 'A', platformRole: 'expert', orgMemberships: [], sessionId: randomUUID() };

describe('TokenService while its key pair rotates', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-tokens-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = (keys: { privateKey: string; publicKey: string }, previous?: string) =>
    new TokenService(loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PRIVATE_KEY: keys.privateKey, JWT_PUBLIC_KEY: keys.publicKey, JWT_PUBLIC_KEY_PREVIOUS: previous }));

  it('accepts tokens of the keys in JWT_PUBLIC_KEY_PREVIOUS, and no others', async () => {
    const [old, next, stranger] = [pair(), pair(), pair()];
    const oldToken = await service(old).sign(subject);
    expect(await service(next).verify(oldToken)).toBeNull();
    const rotated = service(next, old.publicKey);
    expect(await rotated.verify(oldToken)).toMatchObject({ sub: subject.userId });
    expect(await rotated.verify(await rotated.sign(subject))).toMatchObject({ sub: subject.userId });
    expect(await rotated.verify(await service(stranger).sign(subject))).toBeNull();
    // Before the switch, instances still signing with the old key accept the new key's tokens.
    expect(await service(old, next.publicKey).verify(await rotated.sign(subject))).toMatchObject({ sub: subject.userId });
    // An expired token stays refused whichever key signed it.
    expect(await rotated.verify(await service(old).sign(subject, Date.now() - 8 * 24 * 3600 * 1000))).toBeNull();
  });

  it('refuses a JWT_PUBLIC_KEY_PREVIOUS that holds no public key', () => {
    expect(() => loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PUBLIC_KEY_PREVIOUS: 'not a key' })).toThrow(/JWT_PUBLIC_KEY_PREVIOUS/);
  });
});

describe('TokenService lifetime rules', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-tokens-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const keys = pair();
  const tokens = new TokenService(loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PRIVATE_KEY: keys.privateKey, JWT_PUBLIC_KEY: keys.publicKey }));
  /** A token signed with the service's own key, with the given `iat` and `exp` (seconds) and claims. */
  const signed = async (iat: number, exp: number, claims: Record<string, unknown> = {}) =>
    new SignJWT({ email: subject.email, name: subject.name, platformRole: subject.platformRole, orgMemberships: [], pwv: iat * 1000, sid: subject.sessionId, ...claims })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(subject.userId)
      .setIssuer('client-organization-service')
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(await importPKCS8(keys.privateKey, 'RS256'));
  const nowS = Math.floor(Date.now() / 1000);
  const day = 24 * 3600;

  it('carries the session id, and accepts a lifetime of exactly 7 days and an iat up to 60 s ahead', async () => {
    expect(await tokens.verify(await tokens.sign(subject))).toMatchObject({ sub: subject.userId, sid: subject.sessionId });
    expect((await tokens.check(await signed(nowS, nowS + 7 * day))).claims).toBeDefined();
    expect((await tokens.check(await signed(nowS + 60, nowS + 60 + day), nowS * 1000)).claims).toBeDefined();
  });

  it('refuses a lifetime over 7 days, an iat more than 60 s ahead, and a token without sid, though the signature is good', async () => {
    expect(await tokens.check(await signed(nowS, nowS + 7 * day + 1))).toEqual({ refused: 'lifetime_too_long', userId: subject.userId });
    expect(await tokens.check(await signed(nowS - 300 * day, nowS + 300 * day))).toEqual({ refused: 'lifetime_too_long', userId: subject.userId });
    expect(await tokens.check(await signed(nowS + 61, nowS + 61 + day), nowS * 1000)).toEqual({ refused: 'issued_in_future', userId: subject.userId });
    expect(await tokens.check(await signed(nowS, nowS + day, { sid: undefined }))).toEqual({ refused: 'no_session', userId: subject.userId });
    expect(await tokens.check(await signed(nowS - 8 * day, nowS - day))).toEqual({ refused: 'expired', userId: subject.userId });
    expect(await tokens.check('not-a-jwt')).toEqual({ refused: 'malformed' });
    expect(await tokens.verify(await signed(nowS, nowS + 7 * day + 1))).toBeNull();
  });

  it('never signs a lifetime over 7 days', async () => {
    const claims = (await tokens.verify(await tokens.sign(subject, Date.now(), 30 * day)))!;
    expect(claims.exp - claims.iat).toBe(7 * day);
  });
});

describe('TokenService, a token verified once per instance', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cos-tokens-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const keys = pair();
  const tokens = () => new TokenService(loadConfig({ APP_ENV: 'test', DATA_DIR: dataDir, JWT_PRIVATE_KEY: keys.privateKey, JWT_PUBLIC_KEY: keys.publicKey }));
  const day = 24 * 3600;

  it('verifies the signature of a token once, and its expiry and issue time on every use', async () => {
    const service = tokens();
    const issuedMs = Date.now();
    const token = await service.sign(subject, issuedMs, day);
    const verify = vi.spyOn(crypto.subtle, 'verify');
    try {
      const first = await service.check(token, issuedMs);
      expect(first.claims).toMatchObject({ sub: subject.userId, sid: subject.sessionId });
      expect(await service.check(token, issuedMs + 1000)).toEqual(first);
      expect(verify).toHaveBeenCalledTimes(1);
      // Earlier than 60 s before its iat, as the first check would say.
      expect(await service.check(token, issuedMs - 120_000)).toEqual({ refused: 'issued_in_future', userId: subject.userId });
      // At its exp it is expired, as jose says (exp <= now), and is verified again if shown again.
      const expMs = first.claims!.exp * 1000;
      expect(await service.check(token, expMs - 1)).toEqual(first);
      expect(await service.check(token, expMs)).toEqual({ refused: 'expired', userId: subject.userId });
      expect(await service.check(token, expMs + 1000)).toEqual({ refused: 'expired', userId: subject.userId });
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      verify.mockRestore();
    }
  });

  it('never takes another text for a verified token, and shares claims nobody can change', async () => {
    const service = tokens();
    const token = await service.sign(subject);
    const { claims } = await service.check(token);
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}${signature!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect(await service.check(tampered)).toEqual({ refused: 'bad_signature' });
    const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), platformRole: 'superadmin' })).toString('base64url');
    expect(await service.check(`${header}.${elevated}.${signature}`)).toEqual({ refused: 'bad_signature' });
    expect(() => {
      (claims!.orgMemberships as unknown[]).push({ orgId: randomUUID(), orgRole: 'admin' });
    }).toThrow(TypeError);
    expect((await service.check(token)).claims!.orgMemberships).toEqual([]);
  });

  it('remembers at most VERIFIED_TOKENS_MAX tokens, forgetting the oldest first', async () => {
    const service = tokens();
    const verify = vi.spyOn(crypto.subtle, 'verify');
    try {
      const first = await service.sign(subject);
      await service.check(first);
      const remembered = (service as unknown as { verified: Map<string, unknown> }).verified;
      for (let i = 1; i < VERIFIED_TOKENS_MAX; i++) remembered.set(`filler-${i}`, {});
      await service.check(first);
      expect(verify).toHaveBeenCalledTimes(1);
      await service.check(await service.sign({ ...subject, sessionId: randomUUID() }));
      expect(remembered.size).toBe(VERIFIED_TOKENS_MAX);
      expect(remembered.has(createHash('sha256').update(first).digest('base64'))).toBe(false);
      expect((await service.check(first)).claims).toBeDefined();
      expect(verify).toHaveBeenCalledTimes(3);
    } finally {
      verify.mockRestore();
    }
  });
});
