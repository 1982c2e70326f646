import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { CoverageItemSchema, CreateGrantSchema, ExpertSummarySchema, GrantDtoSchema } from '../../contracts/experts.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import { requestScope } from '../../platform/tenancy/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema, decodeCursor, onePage, pageSchema } from '../../platform/http/pagination.js';
import { ExpertsService } from './experts.service.js';

const OrgParams = z.object({ orgId: z.uuid() });
const GrantParams = z.object({ orgId: z.uuid(), grantId: z.uuid() });

/** Every route here is for staff who act on every org (@PlatformRoles). */
const staffScope = (orgId: string) => requestScope(orgId, 'org_wide_role');

/** Expert coverage (wizard step 2; spec 2.4, 4.2): account managers and superadmins. */
@Controller('am')
@PlatformRoles('account_manager', 'superadmin')
export class ExpertsController {
  constructor(private readonly experts: ExpertsService) {}

  @Get('experts/list')
  @Endpoint({ summary: 'Active Experts, newest first (created, id)', tags: ['experts'], query: PageQuerySchema, response: pageSchema(ExpertSummarySchema) })
  list(@ValidQuery() q: z.infer<typeof PageQuerySchema>) {
    return this.experts.expertsPage({ limit: q.limit, after: decodeCursor(q.cursor) });
  }

  @Get('orgs/:orgId/expert-grants')
  @Endpoint({ summary: "The org's Expert grants, oldest first (created, id); one page", tags: ['experts'], params: OrgParams, response: pageSchema(GrantDtoSchema), errors: [404] })
  async grants(@ValidParams() p: z.infer<typeof OrgParams>) {
    return onePage(await this.experts.grants(staffScope(p.orgId)));
  }

  @Get('orgs/:orgId/specialist-coverage')
  @Endpoint({
    summary: 'Per assigned Specialist (oldest assignment first), the Experts covering it (informational); one page',
    tags: ['experts'],
    params: OrgParams,
    response: pageSchema(CoverageItemSchema),
    errors: [404],
  })
  async coverage(@ValidParams() p: z.infer<typeof OrgParams>) {
    return onePage(await this.experts.coverage(staffScope(p.orgId)));
  }

  @Post('orgs/:orgId/expert-grants')
  @HttpCode(201)
  @Endpoint({
    summary: "Grant coverage: scope 'org' (every Specialist, current and future) or 'specialist' with specialistIds",
    tags: ['experts'],
    params: OrgParams,
    body: CreateGrantSchema,
    response: GrantDtoSchema,
    status: 201,
    errors: [404, 409],
  })
  grant(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgParams>, @ValidBody() body: z.infer<typeof CreateGrantSchema>) {
    return this.experts.grant(actor, staffScope(p.orgId), body);
  }

  @Delete('orgs/:orgId/expert-grants/:grantId')
  @HttpCode(204)
  @Endpoint({ summary: 'Remove a grant', tags: ['experts'], params: GrantParams, response: null, status: 204, errors: [404] })
  async revoke(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof GrantParams>) {
    await this.experts.revoke(actor, staffScope(p.orgId), p.grantId);
  }
}
