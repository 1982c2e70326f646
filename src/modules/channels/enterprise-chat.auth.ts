import { importJWK, jwtVerify, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { systemNow } from '../../platform/clock/clock.js';

export const KEY_SET_CACHE_MS = 24 * 3600_000;
export const CLOCK_SKEW_S = 300;
/** A token signed by a key the cached set does not hold refetches the set, at most this often. */
const KEY_SET_COOLDOWN_MS = 30_000;

export interface EnterpriseChatAuthConfig {
  appId?: string;
  openIdMetadataUrl?: string;
  /** The allowed issuers, each compared exactly. */
  issuers: string[];
}

/** What the activity claims about itself; checked against the token that carried it. */
export interface ActivityClaims {
  serviceUrl?: unknown;
  channelId?: unknown;
}

export type EnterpriseChatRefusal = 'unconfigured' | 'no_token' | 'invalid_token' | 'issuer_not_allowed' | 'service_url_mismatch' | 'endorsement_missing';

export type EnterpriseChatVerdict = { ok: true; claims: JWTPayload; serviceUrl: string } | { ok: false; reason: EnterpriseChatRefusal };

interface KeySet {
  keys: JWK[];
  fetchedAt: number;
}

/**
 * The bearer JWT of spec 5.6 and API-MAP "Channel bindings and vendor traffic": RS256, audience =
 * the configured app id, an issuer equal to one of the allowed ones, `exp` / `nbf` with 5 minutes
 * of skew, the signing key from the key set named by the OpenID metadata (cached 24 hours). The
 * token speaks for one activity only: its `serviceurl` claim must equal the activity's
 * `serviceUrl` (replies carry the platform's connector token there), and a key that lists
 * `endorsements` signs only for those channel ids. Without an app id, a metadata URL or an issuer,
 * every call is refused: validation is never skipped for lack of configuration.
 */
export class EnterpriseChatAuth {
  private keySet?: KeySet;
  private refreshing?: Promise<KeySet>;
  private readonly imported = new WeakMap<JWK, Promise<CryptoKey | Uint8Array>>();

  constructor(
    private readonly config: EnterpriseChatAuthConfig,
    private readonly fetchJson: (url: string) => Promise<unknown> = defaultFetchJson,
    /** The service's clock: token times and the key set's age are read from it (tests move it). */
    private readonly now: () => Date = systemNow,
  ) {}

  get configured(): boolean {
    return Boolean(this.config.appId && this.config.openIdMetadataUrl && this.config.issuers.length > 0);
  }

  async verify(authorization: string | undefined, activity: ActivityClaims): Promise<EnterpriseChatVerdict> {
    if (!this.configured) return { ok: false, reason: 'unconfigured' };
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match) return { ok: false, reason: 'no_token' };
    let signingKey: JWK | undefined;
    let claims: JWTPayload;
    try {
      const getKey: JWTVerifyGetKey = async (header) => {
        const key = await this.keyFor(header.kid, header.alg);
        signingKey = key;
        if (!this.imported.has(key)) this.imported.set(key, importJWK(key, 'RS256'));
        return this.imported.get(key)!;
      };
      ({ payload: claims } = await jwtVerify(match[1]!, getKey, {
        algorithms: ['RS256'],
        audience: this.config.appId,
        clockTolerance: CLOCK_SKEW_S,
        currentDate: this.now(),
        requiredClaims: ['exp', 'iss'],
      }));
    } catch {
      return { ok: false, reason: 'invalid_token' };
    }
    if (!this.config.issuers.includes(claims.iss ?? '')) return { ok: false, reason: 'issuer_not_allowed' };
    const serviceUrl = claims.serviceurl;
    if (typeof serviceUrl !== 'string' || serviceUrl.length === 0 || serviceUrl !== activity.serviceUrl) return { ok: false, reason: 'service_url_mismatch' };
    const endorsements = (signingKey as { endorsements?: unknown } | undefined)?.endorsements;
    if (Array.isArray(endorsements) && !(typeof activity.channelId === 'string' && endorsements.includes(activity.channelId))) return { ok: false, reason: 'endorsement_missing' };
    return { ok: true, claims, serviceUrl };
  }

  /** The signing key named by the token's header; an unknown kid refetches the set (keys rotate). */
  private async keyFor(kid: string | undefined, alg: string | undefined): Promise<JWK> {
    const pick = (set: KeySet) => {
      const candidates = set.keys.filter((k) => k.kty === 'RSA' && (k.use === undefined || k.use === 'sig') && (k.alg === undefined || k.alg === alg) && (kid === undefined || k.kid === kid));
      return candidates.length === 1 ? candidates[0] : undefined;
    };
    const now = this.now().getTime();
    let set = this.keySet && now - this.keySet.fetchedAt < KEY_SET_CACHE_MS ? this.keySet : await this.refresh();
    let key = pick(set);
    if (!key && now - set.fetchedAt >= KEY_SET_COOLDOWN_MS) {
      set = await this.refresh();
      key = pick(set);
    }
    if (!key) throw new Error('no matching key in the key set');
    return key;
  }

  private refresh(): Promise<KeySet> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async load(): Promise<KeySet> {
    const metadata = (await this.fetchJson(this.config.openIdMetadataUrl!)) as { jwks_uri?: unknown } | null;
    if (typeof metadata?.jwks_uri !== 'string') throw new Error('OpenID metadata without jwks_uri');
    const jwks = (await this.fetchJson(metadata.jwks_uri)) as { keys?: unknown } | null;
    if (!Array.isArray(jwks?.keys)) throw new Error('a key set without keys');
    this.keySet = { keys: jwks.keys.filter((k): k is JWK => typeof k === 'object' && k !== null), fetchedAt: this.now().getTime() };
    return this.keySet;
  }
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${new URL(url).host} answered ${res.status}`);
  return res.json();
}
