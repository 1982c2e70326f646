import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { SignJWT, errors as joseErrors, importPKCS8, importSPKI, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { OrgRoleSchema, PlatformRoleSchema } from '../../contracts/roles.js';
import { z } from 'zod';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import type { PrincipalMembership } from './principal.js';

export const TOKEN_LIFETIME_S = 7 * 24 * 60 * 60;
/** How far in the future an `iat` may lie (clock skew between instances). */
export const MAX_IAT_SKEW_S = 60;
const ISSUER = 'client-organization-service';
/** How many verified tokens an instance remembers (under 1 kB each): the newest, the oldest forgotten first. */
export const VERIFIED_TOKENS_MAX = 5_000;

export interface TokenSubject {
  userId: string;
  email: string;
  name: string;
  platformRole: z.infer<typeof PlatformRoleSchema>;
  orgMemberships: PrincipalMembership[];
  /** The server-side session the token belongs to (`sid`). */
  sessionId: string;
  impersonatorId?: string;
  impersonationId?: string;
}

const ClaimsSchema = z.object({
  sub: z.uuid(),
  email: z.string(),
  name: z.string(),
  platformRole: PlatformRoleSchema,
  orgMemberships: z.array(z.object({ orgId: z.uuid(), orgRole: OrgRoleSchema })),
  pwv: z.number().int().nonnegative(),
  sid: z.uuid(),
  iat: z.number(),
  exp: z.number(),
  impersonatorId: z.uuid().optional(),
  impersonationId: z.uuid().optional(),
});
export type TokenClaims = z.infer<typeof ClaimsSchema>;

/** Why a token was refused before any row was read (for the `security.token_refused` line). */
export type TokenRefusal = 'malformed' | 'bad_signature' | 'expired' | 'claims_invalid' | 'no_session' | 'lifetime_too_long' | 'issued_in_future';
export type TokenCheck = { claims: TokenClaims; refused?: undefined } | { claims?: undefined; refused: TokenRefusal; userId?: string };

/** RS256 user tokens (spec 5.1), with `pwv`: the issue time in milliseconds, for revocation. */
@Injectable()
export class TokenService {
  private keys?: Promise<{ privateKey: CryptoKey; publicKey: CryptoKey; previous: CryptoKey[] }>;
  /**
   * Tokens whose signature, issuer and time-independent claims checked out, by the SHA-256 of their
   * exact text (no bearer token is kept in memory past its request):
   * the RS256 verification (the largest CPU cost of an authenticated request) is done once per
   * token and instance. Only what depends on the clock is checked again on each use, and what a
   * token grants is still read from its user and session on every request (RequestAuthenticator).
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private getKeys() {
    this.keys ??= (async () => ({
      privateKey: await importPKCS8(this.config.keys.jwtPrivateKeyPem, 'RS256'),
      publicKey: await importSPKI(this.config.keys.jwtPublicKeyPem, 'RS256'),
      previous: await Promise.all(this.config.keys.previousJwtPublicKeyPems.map((k) => importSPKI(k, 'RS256'))),
    }))();
    return this.keys;
  }

  /** A token for the subject, valid 7 days unless `lifetimeS` is shorter (impersonation). */
  async sign(subject: TokenSubject, now = Date.now(), lifetimeS = TOKEN_LIFETIME_S): Promise<string> {
    const { privateKey } = await this.getKeys();
    const payload: JWTPayload & Record<string, unknown> = {
      email: subject.email,
      name: subject.name,
      platformRole: subject.platformRole,
      orgMemberships: subject.orgMemberships.map((m) => ({ orgId: m.orgId, orgRole: m.orgRole })),
      pwv: now,
      sid: subject.sessionId,
    };
    if (subject.impersonatorId) payload.impersonatorId = subject.impersonatorId;
    if (subject.impersonationId) payload.impersonationId = subject.impersonationId;
    const iat = Math.floor(now / 1000);
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setSubject(subject.userId)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + Math.min(lifetimeS, TOKEN_LIFETIME_S))
      .sign(privateKey);
  }

  /** The claims of a valid token, or null (bad signature, expired, malformed, lifetime rules). */
  async verify(token: string): Promise<TokenClaims | null> {
    return (await this.check(token)).claims ?? null;
  }

  /**
   * The claims of a valid token, or why it is refused. Beyond the signature and expiry, a token may
   * live at most 7 days (`exp - iat`) and may not be issued more than 60 s ahead of this clock,
   * whoever signed it with our key.
   */
  async check(token: string, nowMs = Date.now()): Promise<TokenCheck> {
    const digest = createHash('sha256').update(token).digest('base64');
    const known = this.verified.get(digest);
    if (known) {
      const checked = timeChecked(known, nowMs);
      if (checked.refused === 'expired') this.verified.delete(digest);
      return checked;
    }
    const { publicKey, previous } = await this.getKeys();
    // While a key pair rotates, a token signed with the other key of the rotation is good too.
    for (const key of [publicKey, ...previous]) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, { algorithms: ['RS256'], issuer: ISSUER, currentDate: new Date(nowMs) }));
      } catch (err) {
        if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue;
        if (err instanceof joseErrors.JWTExpired) return { refused: 'expired', userId: verifiedSubject(err.payload) };
        if (err instanceof joseErrors.JWTClaimValidationFailed) return { refused: 'claims_invalid', userId: verifiedSubject(err.payload) };
        if (err instanceof joseErrors.JOSEError) return { refused: 'malformed' };
        throw err;
      }
      const userId = verifiedSubject(payload);
      if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return { refused: 'claims_invalid', userId };
      if (payload.exp - payload.iat > TOKEN_LIFETIME_S) return { refused: 'lifetime_too_long', userId };
      if (payload.iat > nowMs / 1000 + MAX_IAT_SKEW_S) return { refused: 'issued_in_future', userId };
      const parsed = ClaimsSchema.safeParse(payload);
      if (!parsed.success) return { refused: payload.sid === undefined ? 'no_session' : 'claims_invalid', userId };
      // A `nbf` would make the check depend on the clock in one more way: such a token (never ours) is verified each time.
      if (payload.nbf === undefined) this.remember(digest, parsed.data);
      return { claims: parsed.data };
    }
    return { refused: 'bad_signature' };
  }

  private remember(digest: string, claims: TokenClaims): void {
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(digest, deepFreeze(claims));
  }
}

/** The clock-dependent checks of `check` (jose's expiry, then the issue time), on claims verified before. */
function timeChecked(claims: TokenClaims, nowMs: number): TokenCheck {
  if (claims.exp <= Math.floor(nowMs / 1000)) return { refused: 'expired', userId: claims.sub };
  if (claims.iat > nowMs / 1000 + MAX_IAT_SKEW_S) return { refused: 'issued_in_future', userId: claims.sub };
  return { claims };
}

/** Claims shared by every request that presents the token: nobody may change them. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

const UserIdSchema = z.uuid();

/** The `sub` of a payload whose signature checked out (a user id for the log, when it is one). */
function verifiedSubject(payload: JWTPayload): string | undefined {
  return typeof payload.sub === 'string' && UserIdSchema.safeParse(payload.sub).success ? payload.sub : undefined;
}
