import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnterpriseChatAuth } from './enterprise-chat.auth.js';

const ISSUER = 'https://api.botframework.test';
const SERVICE_URL = 'https://smba.example.test/emea/';

/** A loopback stand-in for the vendor's OpenID metadata and key set. */
describe('EnterpriseChatAuth (spec 5.6, API-MAP "Channel bindings and vendor traffic")', () => {
  let server: Server;
  let base: string;
  const paths: string[] = [];
  let plainKey: CryptoKey;
  let endorsedKey: CryptoKey;
  let jwks: JWK[];

  beforeAll(async () => {
    const plain = await generateKeyPair('RS256', { extractable: true });
    const endorsed = await generateKeyPair('RS256', { extractable: true });
    plainKey = plain.privateKey;
    endorsedKey = endorsed.privateKey;
    jwks = [{ ...(await exportJWK(plain.publicKey)), kid: 'plain', use: 'sig' }, { ...(await exportJWK(endorsed.publicKey)), kid: 'endorsed', use: 'sig', endorsements: ['msteams'] } as JWK];
    server = createServer((req, res) => {
      paths.push(req.url ?? '/');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/metadata') return res.end(JSON.stringify({ issuer: ISSUER, jwks_uri: `${base}/keys` }));
      if (req.url === '/keys') return res.end(JSON.stringify({ keys: jwks }));
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const auth = () => new EnterpriseChatAuth({ appId: 'app-1', openIdMetadataUrl: `${base}/metadata`, issuers: [ISSUER] });
  const token = (over: { iss?: string; aud?: string; serviceurl?: string | null; kid?: string; key?: CryptoKey; exp?: number } = {}) => {
    const claims = over.serviceurl === null ? {} : { serviceurl: over.serviceurl ?? SERVICE_URL };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: over.kid ?? 'plain' })
      .setIssuer(over.iss ?? ISSUER)
      .setAudience(over.aud ?? 'app-1')
      .setIssuedAt()
      .setExpirationTime(over.exp ?? '10m')
      .sign(over.key ?? plainKey);
  };
  const bearer = async (over?: Parameters<typeof token>[0]) => `Bearer ${await token(over)}`;

  it('accepts a good token for its own activity and gives the verified serviceUrl', async () => {
    const verdict = await auth().verify(await bearer(), { serviceUrl: SERVICE_URL, channelId: 'msteams' });
    expect(verdict).toMatchObject({ ok: true, serviceUrl: SERVICE_URL, claims: { iss: ISSUER, aud: 'app-1' } });
  });

  it("refuses an activity whose serviceUrl differs from the token's serviceurl claim, or a token without the claim", async () => {
    const a = auth();
    expect(await a.verify(await bearer(), { serviceUrl: 'https://attacker.test/' })).toEqual({ ok: false, reason: 'service_url_mismatch' });
    expect(await a.verify(await bearer(), { serviceUrl: `${SERVICE_URL}x` })).toEqual({ ok: false, reason: 'service_url_mismatch' });
    expect(await a.verify(await bearer(), {})).toEqual({ ok: false, reason: 'service_url_mismatch' });
    expect(await a.verify(await bearer({ serviceurl: null }), { serviceUrl: SERVICE_URL })).toEqual({ ok: false, reason: 'service_url_mismatch' });
    expect(await a.verify(await bearer({ serviceurl: null }), {})).toEqual({ ok: false, reason: 'service_url_mismatch' });
  });

  it('compares issuers exactly: one that merely starts with an allowed issuer is refused', async () => {
    const a = auth();
    for (const iss of [`${ISSUER}/`, `${ISSUER}.attacker.test`, `${ISSUER}/tenant`, 'https://api.botframework']) {
      expect(await a.verify(await bearer({ iss }), { serviceUrl: SERVICE_URL })).toEqual({ ok: false, reason: 'issuer_not_allowed' });
    }
  });

  it("checks the key's endorsements against the activity's channelId", async () => {
    const a = auth();
    const signed = () => bearer({ kid: 'endorsed', key: endorsedKey });
    expect((await a.verify(await signed(), { serviceUrl: SERVICE_URL, channelId: 'msteams' })).ok).toBe(true);
    expect(await a.verify(await signed(), { serviceUrl: SERVICE_URL, channelId: 'webchat' })).toEqual({ ok: false, reason: 'endorsement_missing' });
    expect(await a.verify(await signed(), { serviceUrl: SERVICE_URL })).toEqual({ ok: false, reason: 'endorsement_missing' });
    // A key without endorsements makes no claim about channels.
    expect((await a.verify(await bearer(), { serviceUrl: SERVICE_URL, channelId: 'webchat' })).ok).toBe(true);
  });

  it('keeps the rest of spec 5.6: audience, expiry with 5 minutes of skew, the right key, fail closed without configuration', async () => {
    const a = auth();
    const activity = { serviceUrl: SERVICE_URL };
    const now = Math.floor(Date.now() / 1000);
    expect(await a.verify(await bearer({ aud: 'another-app' }), activity)).toEqual({ ok: false, reason: 'invalid_token' });
    expect(await a.verify(await bearer({ exp: now - 400 }), activity)).toEqual({ ok: false, reason: 'invalid_token' });
    expect((await a.verify(await bearer({ exp: now - 200 }), activity)).ok).toBe(true);
    expect(await a.verify(await bearer({ kid: 'endorsed' }), activity)).toEqual({ ok: false, reason: 'invalid_token' });
    expect(await a.verify(undefined, activity)).toEqual({ ok: false, reason: 'no_token' });
    expect(await a.verify('Bearer not-a-jwt', activity)).toEqual({ ok: false, reason: 'invalid_token' });
    const unconfigured = new EnterpriseChatAuth({ appId: undefined, openIdMetadataUrl: `${base}/metadata`, issuers: [ISSUER] });
    expect(await unconfigured.verify(await bearer(), activity)).toEqual({ ok: false, reason: 'unconfigured' });
    expect(await new EnterpriseChatAuth({ appId: 'app-1', openIdMetadataUrl: `${base}/metadata`, issuers: [] }).verify(await bearer(), activity)).toEqual({ ok: false, reason: 'unconfigured' });
  });

  it('caches the key set: one fetch for many tokens, one refetch (at most) for an unknown key', async () => {
    const a = auth();
    paths.length = 0;
    for (let i = 0; i < 3; i++) expect((await a.verify(await bearer(), { serviceUrl: SERVICE_URL })).ok).toBe(true);
    expect(paths).toEqual(['/metadata', '/keys']);
    for (let i = 0; i < 3; i++) expect((await a.verify(await bearer({ kid: 'rotated-away' }), { serviceUrl: SERVICE_URL })).ok).toBe(false);
    // Within the cooldown an unknown kid does not refetch: a flood of made-up kids costs the vendor nothing.
    expect(paths).toEqual(['/metadata', '/keys']);
  });
});
