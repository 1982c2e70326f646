import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

export const KEY_SET_CACHE_MS = 24 * 3600_000;
export const CLOCK_SKEW_S = 300;

export interface EnterpriseChatAuthConfig {
  appId?: string;
  openIdMetadataUrl?: string;
  /** Allowed issuer prefixes. */
  issuers: string[];
}

/**
 * The bearer JWT of spec 5.6: RS256, audience = the configured app id, an issuer from the prefix
 * allowlist, `exp` / `nbf` with 5 minutes of skew, the signing key from the key set named by the
 * OpenID metadata, cached 24 hours. Without an app id, a metadata URL or an issuer, every call is
 * refused: validation is never skipped for lack of configuration.
 */
export class EnterpriseChatAuth {
  private keySet?: { get: JWTVerifyGetKey; fetchedAt: number };

  constructor(
    private readonly config: EnterpriseChatAuthConfig,
    private readonly fetchJson: (url: string) => Promise<unknown> = defaultFetchJson,
  ) {}

  get configured(): boolean {
    return Boolean(this.config.appId && this.config.openIdMetadataUrl && this.config.issuers.length > 0);
  }

  /** The verified claims, or null for anything that is not a valid token of ours. */
  async verify(authorization: string | undefined): Promise<JWTPayload | null> {
    if (!this.configured) return null;
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) return null;
    try {
      const keys = await this.keys();
      const { payload } = await jwtVerify(match[1]!, keys, {
        algorithms: ['RS256'],
        audience: this.config.appId,
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp', 'iss'],
      });
      const issuer = payload.iss ?? '';
      if (!this.config.issuers.some((prefix) => issuer.startsWith(prefix))) return null;
      return payload;
    } catch {
      return null;
    }
  }

  private async keys(): Promise<JWTVerifyGetKey> {
    if (this.keySet && Date.now() - this.keySet.fetchedAt < KEY_SET_CACHE_MS) return this.keySet.get;
    const metadata = (await this.fetchJson(this.config.openIdMetadataUrl!)) as { jwks_uri?: unknown };
    if (typeof metadata?.jwks_uri !== 'string') throw new Error('OpenID metadata without jwks_uri');
    const get = createRemoteJWKSet(new URL(metadata.jwks_uri), { cacheMaxAge: KEY_SET_CACHE_MS, cooldownDuration: 30_000 });
    this.keySet = { get, fetchedAt: Date.now() };
    return get;
  }
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`OpenID metadata answered ${res.status}`);
  return res.json();
}
