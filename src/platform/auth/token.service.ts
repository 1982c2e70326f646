import { Inject, Injectable } from '@nestjs/common';
import { SignJWT, errors as joseErrors, importPKCS8, importSPKI, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { OrgRoleSchema, PlatformRoleSchema } from '../../contracts/roles.js';
import { z } from 'zod';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import type { PrincipalMembership } from './principal.js';

export const TOKEN_LIFETIME_S = 7 * 24 * 60 * 60;
const ISSUER = 'client-organization-service';

export interface TokenSubject {
  userId: string;
  email: string;
  name: string;
  platformRole: z.infer<typeof PlatformRoleSchema>;
  orgMemberships: PrincipalMembership[];
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
  sid: z.uuid().optional(),
  iat: z.number(),
  exp: z.number(),
  impersonatorId: z.uuid().optional(),
  impersonationId: z.uuid().optional(),
});
export type TokenClaims = z.infer<typeof ClaimsSchema>;

/** RS256 user tokens (spec 5.1), with `pwv`: the issue time in milliseconds, for revocation. */
@Injectable()
export class TokenService {
  private keys?: Promise<{ privateKey: CryptoKey; publicKey: CryptoKey; previous: CryptoKey[] }>;

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

  /** The claims of a valid token, or null (bad signature, expired, malformed). */
  async verify(token: string): Promise<TokenClaims | null> {
    const { publicKey, previous } = await this.getKeys();
    // While a key pair rotates, a token signed with the other key of the rotation is good too.
    for (const key of [publicKey, ...previous]) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['RS256'], issuer: ISSUER });
        const parsed = ClaimsSchema.safeParse(payload);
        return parsed.success ? parsed.data : null;
      } catch (err) {
        if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue;
        if (err instanceof joseErrors.JOSEError) return null;
        throw err;
      }
    }
    return null;
  }
}
