import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { ImpersonateSchema, ImpersonationSessionSchema, ImpersonationStartedSchema, ImpersonationStoppedSchema, ImpersonationsQuerySchema, StopImpersonationSchema } from '../../contracts/admin.js';
import { CurrentPrincipal, OpenWhileSuspended, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { ImpersonationService } from './impersonation.service.js';

const IdParams = z.object({ id: z.uuid() });

/** Impersonation (spec 5.8): superadmin only, with a reason; stop from the impersonated session. */
@Controller()
export class ImpersonationController {
  constructor(private readonly impersonation: ImpersonationService) {}

  @Post('admin/impersonate/stop')
  @HttpCode(200)
  // Acting as a client of a suspended org, the SuperAdmin can still end the session.
  @OpenWhileSuspended()
  @Endpoint({
    summary: 'End an impersonation session',
    description:
      "With the impersonation token: ends that session (its token stops working at once) and answers the SuperAdmin's own session that started it as `token`, " +
      'a new token of that same session, when it is still open and its user still an active SuperAdmin (no `token` otherwise: sign in again). ' +
      "With a SuperAdmin's own token: ends the session named by `impersonationId`, or all of the caller's open sessions.",
    tags: ['admin'],
    body: StopImpersonationSchema,
    response: ImpersonationStoppedSchema,
    status: 200,
    errors: [403, 404],
  })
  stop(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof StopImpersonationSchema>) {
    return this.impersonation.stop(p, body.impersonationId);
  }

  @Post('admin/impersonate/:id')
  @HttpCode(201)
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Open a session as another user, with a reason (superadmin; never a SuperAdmin)',
    description:
      "A SuperAdmin target answers 403 'Cannot impersonate a Super Admin.'. The token (1 hour) carries `impersonatorId` and `impersonationId`; " +
      'every mutating request made with it is audited with both ids (`impersonation.action`).',
    tags: ['admin'],
    params: IdParams,
    body: ImpersonateSchema,
    response: ImpersonationStartedSchema,
    status: 201,
    errors: [403, 404, 409],
  })
  start(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof ImpersonateSchema>) {
    return this.impersonation.start(actor, p.id, body.reason);
  }

  @Get('ops/impersonation')
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Impersonation sessions, newest first (`active=true` for open ones)',
    tags: ['admin'],
    query: ImpersonationsQuerySchema,
    response: pageSchema(ImpersonationSessionSchema),
  })
  list(@ValidQuery() q: z.infer<typeof ImpersonationsQuerySchema>) {
    return this.impersonation.list(q);
  }
}
