import { createServer, type IncomingMessage, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';

export interface VendorCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local stand-in for the vendor APIs the channels talk to (send-message endpoints, the
 * enterprise-chat token endpoint, OpenID metadata and key set, attachment downloads). It records
 * every call; `failNext` makes the next calls answer 500.
 */
export interface FakeVendor {
  url: string;
  calls: VendorCall[];
  failNext: number;
  sends(pathPart: string): VendorCall[];
  /** An enterprise-chat bearer token signed with the vendor's key; its `serviceurl` is `<url>/ec` unless given. */
  token(claims?: TokenClaims): Promise<string>;
  close(): Promise<void>;
}

type TokenClaims = { aud?: string; iss?: string; expiresIn?: string | number; nbf?: number; serviceurl?: string };

/** The settings that point the app's enterprise-chat at a stand-in: its key set, issuer, token endpoint and app id `app-1` (the tokens' audience). */
export function enterpriseChatEnv(vendor: Pick<FakeVendor, 'url'>): Record<string, string> {
  return {
    ENTERPRISE_CHAT_APP_ID: 'app-1',
    ENTERPRISE_CHAT_OPENID_METADATA_URL: `${vendor.url}/metadata`,
    ENTERPRISE_CHAT_ISSUERS: 'https://issuer.test/',
    ENTERPRISE_CHAT_APP_PASSWORD: 'app-password',
    ENTERPRISE_CHAT_TOKEN_URL: `${vendor.url}/token`,
  };
}

export async function startFakeVendor(): Promise<FakeVendor> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'vendor-key-1', alg: 'RS256', use: 'sig' };
  const calls: VendorCall[] = [];
  let server: Server; // eslint-disable-line prefer-const -- assigned below, after the vendor that its handler closes over
  const vendor: FakeVendor = {
    url: '',
    calls,
    failNext: 0,
    sends: (pathPart) => calls.filter((c) => c.method === 'POST' && c.path.includes(pathPart)),
    token: (claims = {}) => sign(privateKey, { serviceurl: `${vendor.url}/ec`, ...claims }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      calls.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const send = (status: number, payload: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };
      if (path === '/metadata') return send(200, { issuer: 'https://issuer.test/', jwks_uri: `${vendor.url}/jwks` });
      if (path === '/jwks') return send(200, { keys: [jwk] });
      if (path.startsWith('/files/')) return send(200, `contents of ${path.slice(7)}`, 'text/plain');
      const getFile = /\/getFile\?file_id=([^&]+)$/.exec(path);
      if (getFile) return send(200, { ok: true, result: { file_id: decodeURIComponent(getFile[1]!), file_path: `documents/${decodeURIComponent(getFile[1]!)}.txt` } });
      if (/\/file\/bot[^/]+\/documents\//.test(path)) return send(200, `contents of ${path.split('/').pop()}`, 'text/plain');
      if (vendor.failNext > 0) {
        vendor.failNext--;
        return send(500, { error: 'vendor unavailable' });
      }
      if (path === '/token') return send(200, { access_token: 'vendor-access-token', expires_in: 3600, token_type: 'Bearer' });
      if (path.includes('chat.postMessage')) return send(200, { ok: true, ts: `${Date.now() / 1000}` });
      if (path.includes('/Messages.json')) return send(201, { sid: `SM${calls.length}` });
      if (path.includes('/sendMessage')) return send(200, { ok: true, result: { message_id: calls.length } });
      if (path.includes('/v3/conversations/')) return send(200, { id: `activity-${calls.length}` });
      send(404, { error: 'unknown path' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vendor.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return vendor;
}

async function sign(key: CryptoKey, claims: TokenClaims): Promise<string> {
  const jwt = new SignJWT({ serviceurl: claims.serviceurl })
    .setProtectedHeader({ alg: 'RS256', kid: 'vendor-key-1' })
    .setIssuer(claims.iss ?? 'https://issuer.test/')
    .setAudience(claims.aud ?? 'app-1')
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '10m');
  if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
  return jwt.sign(key);
}
