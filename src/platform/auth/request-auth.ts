import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { securityEvent } from '../observability/security-log.js';
import { definePort, Ports } from '../ports/ports.js';
import type { Principal, PrincipalRecord } from './principal.js';
import { TokenService } from './token.service.js';

/**
 * A request's caller, or why there is none. `closedOrgIds`: the caller's member orgs whose access
 * gate was closed when the caller was read, for this request's gate only (absent: the gate reads
 * them itself).
 */
export type AuthOutcome = { principal: Principal; closedOrgIds?: ReadonlySet<string> } | { principal?: undefined; reason: 'missing' | 'invalid' | 'revoked' | 'inactive' };

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
/** Provided by the module that keeps impersonation sessions (admin). */
export interface ImpersonationCheck {
  /** True while the impersonation session is open (not stopped, not expired, the impersonator still a SuperAdmin). */
  isOpen(claims: ImpersonationClaims): Promise<boolean>;
}
export const IMPERSONATION_CHECK = definePort<ImpersonationCheck>('IMPERSONATION_CHECK');

/** A server-side session as the authenticator needs it, for the `sid` of a token. */
export interface SessionState {
  userId: string;
  expiresAt: Date;
  endedAt: Date | null;
  endReason: string | null;
}
/**
 * What a token's check reads: its user's current state (null when removed), its session, and the
 * user's member orgs whose access gate is closed (spec 3.6), read with them (undefined when they
 * were not: the gate then reads them itself).
 */
export interface CallerState {
  user: PrincipalRecord | null;
  session: SessionState | undefined;
  closedOrgIds: string[] | undefined;
}
/** Provided by the module that keeps sessions (auth): both read in one statement. */
export interface CallerLookup {
  caller(userId: string, sessionId: string): Promise<CallerState>;
}
export const CALLER_LOOKUP = definePort<CallerLookup>('CALLER_LOOKUP');

export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}

/**
 * Resolves the caller of a request once: the token verified, then the user's current row
 * (status and `passwordChangedAt`, compared at millisecond precision) and the token's server-side
 * session (not ended, not expired, the user's own), read in one statement. Every refusal leaves a
 * `security.token_refused` (the token itself is bad) or `security.token_revoked` (a good token
 * whose session or user no longer allows it) line, never with the token in it.
 */
@Injectable()
export class RequestAuthenticator implements OnModuleInit {
  private impersonations!: ImpersonationCheck;
  private callers!: CallerLookup;

  constructor(
    private readonly tokens: TokenService,
    private readonly ports: Ports,
  ) {}

  /** Without either port the app does not start: no token is ever checked without them. */
  onModuleInit(): void {
    this.impersonations = this.ports.one(IMPERSONATION_CHECK);
    this.callers = this.ports.one(CALLER_LOOKUP);
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
    const checked = await this.tokens.check(token);
    if (!checked.claims) {
      securityEvent('token_refused', { reason: checked.refused, userId: checked.userId });
      return { reason: 'invalid' };
    }
    const claims = checked.claims;
    const { user, session, closedOrgIds } = await this.callers.caller(claims.sub, claims.sid);
    const revoked = (reason: string, fields: Record<string, unknown> = {}, outcome: 'revoked' | 'invalid' | 'inactive' = 'revoked'): AuthOutcome => {
      securityEvent('token_revoked', { reason, userId: claims.sub, sessionId: claims.sid, ...fields });
      return { reason: outcome };
    };
    if (!user) return revoked('user_removed', {}, 'invalid');
    if (user.status !== 'active') return revoked('user_inactive', { status: user.status }, 'inactive');
    if (user.passwordChangedAt.getTime() > claims.pwv) return revoked('password_changed');
    if (!session) return revoked('session_unknown');
    if (session.userId !== user.id) {
      securityEvent('token_refused', { reason: 'session_of_another_user', userId: claims.sub, sessionId: claims.sid });
      return { reason: 'invalid' };
    }
    if (session.endedAt) return revoked('session_ended', { endReason: session.endReason });
    if (session.expiresAt.getTime() <= Date.now()) return revoked('session_expired');
    if (claims.impersonationId || claims.impersonatorId) {
      const open =
        claims.impersonationId !== undefined &&
        claims.impersonatorId !== undefined &&
        (await this.impersonations.isOpen({ impersonationId: claims.impersonationId, impersonatorId: claims.impersonatorId, targetUserId: user.id }));
      if (!open) return revoked('impersonation_closed', { impersonatorId: claims.impersonatorId, impersonationId: claims.impersonationId });
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
      closedOrgIds: closedOrgIds && new Set(closedOrgIds),
    };
  }
}
