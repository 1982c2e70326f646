import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PRINCIPAL_LOADER, type Principal, type PrincipalLoader } from './principal.js';
import { TokenService } from './token.service.js';

export type AuthOutcome = { principal: Principal } | { principal?: undefined; reason: 'missing' | 'invalid' | 'revoked' | 'inactive' };

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    authOutcome?: Promise<AuthOutcome>;
  }
}

const MISSING: Promise<AuthOutcome> = Promise.resolve({ reason: 'missing' });

/** The claims of an impersonation token, for the module that keeps impersonation sessions. */
export interface ImpersonationClaims {
  impersonationId: string;
  impersonatorId: string;
  targetUserId: string;
}
/** True while the impersonation session is open (not stopped, not expired, the impersonator still a SuperAdmin). */
export type ImpersonationCheck = (claims: ImpersonationClaims) => Promise<boolean>;

export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}

/**
 * Resolves the caller of a request once: the token verified, then the user's current row
 * (status and `passwordChangedAt`, compared at millisecond precision).
 */
@Injectable()
export class RequestAuthenticator {
  // Fails closed until the module that owns impersonation sessions answers.
  private impersonationOpen: ImpersonationCheck = async () => false;

  constructor(
    private readonly tokens: TokenService,
    @Inject(PRINCIPAL_LOADER) private readonly loader: PrincipalLoader,
  ) {}

  setImpersonationCheck(check: ImpersonationCheck): void {
    this.impersonationOpen = check;
  }

  resolve(request: FastifyRequest): Promise<AuthOutcome> {
    if (request.headers.authorization === undefined) return MISSING;
    request.authOutcome ??= this.authenticate(bearerToken(request.headers.authorization)).then((outcome) => {
      if (outcome.principal) request.principal = outcome.principal;
      return outcome;
    });
    return request.authOutcome;
  }

  async authenticate(token: string | undefined): Promise<AuthOutcome> {
    if (!token) return { reason: 'missing' };
    const claims = await this.tokens.verify(token);
    if (!claims) return { reason: 'invalid' };
    const user = await this.loader.load(claims.sub);
    if (!user) return { reason: 'invalid' };
    if (user.status !== 'active') return { reason: 'inactive' };
    if (user.passwordChangedAt.getTime() > claims.pwv) return { reason: 'revoked' };
    if (claims.impersonationId || claims.impersonatorId) {
      const open =
        claims.impersonationId !== undefined &&
        claims.impersonatorId !== undefined &&
        (await this.impersonationOpen({ impersonationId: claims.impersonationId, impersonatorId: claims.impersonatorId, targetUserId: user.id }));
      if (!open) return { reason: 'revoked' };
    }
    return {
      principal: {
        userId: user.id,
        email: user.email,
        name: user.name,
        platformRole: user.platformRole,
        orgMemberships: user.orgMemberships,
        issuedAtMs: claims.pwv,
        sessionId: claims.sid,
        impersonatorId: claims.impersonatorId,
        impersonationId: claims.impersonationId,
        record: user,
      },
    };
  }
}
