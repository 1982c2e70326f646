import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ORG_WIDE_ROLES, type PlatformRole } from '../../contracts/roles.js';
import { IS_PUBLIC, OPEN_WHILE_SUSPENDED, ORG_ROLES, OWN_BEARER, PLATFORM_ROLES, VENDOR_WEBHOOK, type OrgRolesPolicy } from '../auth/auth.decorators.js';
import { OrgAccessGate } from '../auth/org-access-gate.js';
import type { Principal } from '../auth/principal.js';
import { RequestAuthenticator, type AuthOutcome } from '../auth/request-auth.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { AppError } from '../errors/app-error.js';
import { requestScope } from '../tenancy/org-scope.js';
import { RateLimitService, rateLimitError, rateLimitHeaders, type Limiter } from '../rate-limit/rate-limit.service.js';

const ACTS_ON_EVERY_ORG: readonly PlatformRole[] = ORG_WIDE_ROLES;

type HandlerRef = ReturnType<ExecutionContext['getHandler']>;
type ControllerRef = ReturnType<ExecutionContext['getClass']>;

/** What a route's decorators ask of the guard. */
interface RoutePolicy {
  controller: ControllerRef;
  ownBearer: boolean;
  vendorWebhook: boolean;
  isPublic: boolean;
  openWhileSuspended: boolean;
  platformRoles?: PlatformRole[];
  orgPolicy?: OrgRolesPolicy;
}

/**
 * The one global guard, in a fixed order: resolve the caller (if a token is sent), apply the
 * global throttle (spec 7.1, 8), then fail closed: a token unless the route is @Public(),
 * the platform roles, the org roles, then the org access gate for client users (spec 3.6).
 */
@Injectable()
export class RequestGuard implements CanActivate {
  private readonly orgThrottle: Limiter;
  private readonly ipThrottle: Limiter;
  private readonly policies = new WeakMap<HandlerRef, RoutePolicy>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    private readonly accessGate: OrgAccessGate,
    rateLimits: RateLimitService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.orgThrottle = rateLimits.limiter({ name: 'throttle-org', points: config.limits.throttleOrgPerMinute, durationS: 60 });
    this.ipThrottle = rateLimits.ipThrottle();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const policy = this.policyOf(context.getHandler(), context.getClass());

    reply.header('x-request-id', request.id);
    const outcome: AuthOutcome = policy.ownBearer ? { reason: 'missing' } : await this.authenticator.resolve(request);
    if (!policy.vendorWebhook) await this.throttle(request, reply, outcome.principal);

    if (policy.isPublic) return true;
    const principal = outcome.principal;
    if (!principal) {
      const why = outcome.reason === 'missing' ? 'Authentication required' : outcome.reason === 'revoked' ? 'Session revoked, sign in again' : 'Invalid or expired token';
      throw AppError.unauthorized(why);
    }

    if (policy.platformRoles && !policy.platformRoles.includes(principal.platformRole)) {
      throw AppError.forbidden('Your role does not allow this');
    }

    if (policy.orgPolicy) this.checkOrgRoles(request, principal, policy.orgPolicy);

    if (this.accessGate.applies(principal.platformRole) && !policy.openWhileSuspended) {
      // The closed orgs as the caller's own statement read them moments ago, when it did (else the gate reads them).
      await this.accessGate.assertOpenFor(principal, requestOrgId(request, policy.orgPolicy?.param), outcome.closedOrgIds);
    }
    return true;
  }

  /** The route's decorators, read once per handler (they never change at run time). */
  private policyOf(handler: HandlerRef, controller: ControllerRef): RoutePolicy {
    const known = this.policies.get(handler);
    if (known?.controller === controller) return known;
    const targets = [handler, controller];
    const flag = (key: string) => this.reflector.getAllAndOverride<boolean>(key, targets) === true;
    const policy: RoutePolicy = {
      controller,
      ownBearer: flag(OWN_BEARER),
      vendorWebhook: flag(VENDOR_WEBHOOK),
      isPublic: flag(IS_PUBLIC),
      openWhileSuspended: flag(OPEN_WHILE_SUSPENDED),
      platformRoles: this.reflector.getAllAndOverride<PlatformRole[] | undefined>(PLATFORM_ROLES, targets),
      orgPolicy: this.reflector.getAllAndOverride<OrgRolesPolicy | undefined>(ORG_ROLES, targets),
    };
    // A handler inherited by two controllers keeps the first one's (the other reads it each time).
    if (!known) this.policies.set(handler, policy);
    return policy;
  }

  private checkOrgRoles(request: FastifyRequest, principal: Principal, policy: OrgRolesPolicy): void {
    const orgId = (request.params as Record<string, string | undefined>)[policy.param ?? 'orgId'];
    if (!orgId) throw AppError.notFound('Organization');
    if (policy.platformRoles?.includes(principal.platformRole)) {
      request.orgScope = requestScope(orgId, 'org_wide_role');
      return;
    }
    const membership = principal.orgMemberships.find((m) => m.orgId === orgId);
    // Not a member at all: do not reveal that the org exists.
    if (!membership) throw AppError.notFound('Organization');
    if (!policy.roles.includes(membership.orgRole)) throw AppError.forbidden('Your organization role does not allow this');
    request.orgScope = requestScope(orgId, 'membership');
  }

  /**
   * Keyed by the org of the route when the caller may act on it (else the caller's only org),
   * else by the signed-in user, else by IP. A route's org the caller cannot reach never spends
   * that org's budget.
   */
  private async throttle(request: FastifyRequest, reply: FastifyReply, principal: Principal | undefined): Promise<void> {
    let limiter = this.ipThrottle;
    let key = `ip:${request.ip}`;
    if (principal) {
      limiter = this.orgThrottle;
      const routeOrg = (request.params as Record<string, string | undefined> | undefined)?.orgId;
      const member = (orgId: string) => principal.orgMemberships.some((m) => m.orgId === orgId);
      if (routeOrg && (member(routeOrg) || ACTS_ON_EVERY_ORG.includes(principal.platformRole))) {
        key = `org:${routeOrg}`;
      } else if (principal.orgMemberships.length === 1) {
        key = `org:${principal.orgMemberships[0]!.orgId}`;
      } else {
        key = `user:${principal.userId}`;
      }
    }
    const result = await limiter.consume(key);
    if (!result.allowed) throw rateLimitError(result, 'Rate limit exceeded');
    void reply.headers(rateLimitHeaders(result));
  }
}

/** The org a request names: its route parameter (`orgId` or the policy's), else `?orgId=`. */
function requestOrgId(request: FastifyRequest, param = 'orgId'): string | undefined {
  const fromRoute = (request.params as Record<string, string | undefined> | undefined)?.[param];
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.orgId;
  return fromRoute ?? (typeof fromQuery === 'string' ? fromQuery : undefined);
}
