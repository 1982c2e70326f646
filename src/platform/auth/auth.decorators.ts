import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import { AppError } from '../errors/app-error.js';
import type { OrgScope } from '../tenancy/org-scope.js';
import type { Principal } from './principal.js';

export const IS_PUBLIC = 'auth:public';
export const PLATFORM_ROLES = 'auth:platformRoles';
export const ORG_ROLES = 'auth:orgRoles';
export const OPEN_WHILE_SUSPENDED = 'auth:openWhileSuspended';
export const OWN_BEARER = 'auth:ownBearer';
export const VENDOR_WEBHOOK = 'auth:vendorWebhook';

/** The route needs no user token (webhooks, bootstrap, login). Everything else fails closed. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * A public route whose `Authorization: Bearer` is its own secret (the metrics token), not a user
 * token: it is never verified as one (nor logged as a refused token, nor keys the throttle).
 */
export const OwnBearer = () => SetMetadata(OWN_BEARER, true);

/**
 * A vendor's webhook (API-MAP "Channel bindings and vendor traffic"): outside the per-IP global
 * throttle, since a vendor posts for many orgs from few addresses. Its own limits (the chat-a
 * throttle, backpressure, the org quota) still apply.
 */
export const VendorWebhook = () => SetMetadata(VENDOR_WEBHOOK, true);

/**
 * The route stays reachable for client users of a suspended org (spec 3.6: they can still sign in
 * and reach billing settings); every other client route answers 403 `org_suspended`.
 */
export const OpenWhileSuspended = () => SetMetadata(OPEN_WHILE_SUSPENDED, true);

/** Only these platform roles may call the route. */
export const PlatformRoles = (...roles: PlatformRole[]) => SetMetadata(PLATFORM_ROLES, roles);

export interface OrgRolesPolicy {
  roles: OrgRole[];
  /** Platform roles that pass without a membership (internal staff acting on any org). */
  platformRoles?: PlatformRole[];
  /** The route parameter that names the org. */
  param?: string;
}
/** The caller needs one of these roles in the org named by the route's `:orgId`. */
export const OrgRoles = (policy: OrgRolesPolicy) => SetMetadata(ORG_ROLES, policy);

/** The verified caller. Only on routes that are not public (or where the guard found a token). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<{ principal?: Principal }>().principal;
  if (!principal) throw AppError.unauthorized();
  return principal;
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The org of the route, once the guard checked the caller's @OrgRoles for it. */
    orgScope?: OrgScope;
  }
}

/** The scope of the route's org, as the guard's @OrgRoles check verified it (only on such routes). */
export const RouteOrg = createParamDecorator((_data: unknown, ctx: ExecutionContext): OrgScope => {
  const scope = ctx.switchToHttp().getRequest<{ orgScope?: OrgScope }>().orgScope;
  if (!scope) throw new Error('@RouteOrg() needs @OrgRoles() on the route');
  return scope;
});
