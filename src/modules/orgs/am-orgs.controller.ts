import { Controller, Get, HttpCode, Inject, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { CreateOrgSchema, INDUSTRIES, IndustryOptionSchema, OrgSlugSchema, Phase0StatusSchema, SlugAvailabilitySchema, UpdateOrgSchema, WorkspaceSettingsSchema } from '../../contracts/orgs.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { orgsConfig, type OrgsConfig } from './orgs.config.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema, decodeCursor, onePage, pageSchema } from '../../platform/http/pagination.js';
import { RESERVED_SLUGS } from './orgs.rules.js';
import { OrgDtoSchema, OrgIdParamsSchema, OrgListItemSchema } from './orgs.schemas.js';
import { OrgsService } from './orgs.service.js';
import { ORG_STATUSES } from './orgs.tables.js';

const OrgListQuerySchema = PageQuerySchema.extend({
  status: z.enum(ORG_STATUSES).optional(),
  q: z.string().trim().max(200).optional(),
  assignedAmId: z.uuid().optional().describe('Only the orgs of this account manager'),
});
const SlugQuerySchema = z.object({ slug: z.string().max(200), orgId: z.uuid().optional() });

/** The account manager's wizard, Phase 1 (spec 4.2; API-MAP.md "AM wizard"): AMs and superadmins. */
@Controller('am')
@PlatformRoles('account_manager', 'superadmin')
export class AmOrgsController {
  constructor(
    private readonly orgs: OrgsService,
    @Inject(orgsConfig.token) private readonly config: OrgsConfig,
  ) {}

  @Get('workspace')
  @Endpoint({
    summary: "The deployment's workspace settings the wizard needs: the domain of every workspace alias (WORKSPACE_DOMAIN)",
    description: 'The Specialist step previews `<firstname>.<org_slug>@{workspaceDomain}` client-side (spec 2.3.1 rule 5) with it, also before the first assignment.',
    tags: ['am-wizard'],
    response: WorkspaceSettingsSchema,
  })
  workspace() {
    return { workspaceDomain: this.config.workspaceDomain };
  }

  @Get('industries')
  @Endpoint({
    summary: 'The 13 industries of spec 2.1, in the order of the form; one page',
    tags: ['am-wizard'],
    response: pageSchema(IndustryOptionSchema),
  })
  industries() {
    return onePage([...INDUSTRIES]);
  }

  @Get('slug-availability')
  @Endpoint({
    summary: 'Real-time slug validation',
    description: `The slug is checked exactly as sent (not lowercased): anything outside the pattern of spec 2.1 is 'invalid_format'. 'taken' means held by an org that is not deactivated, or reserved for good (confirmed or finished orgs, rebrand aliases). Pass orgId when re-editing an org so its own slug is not reported as taken. Reserved words: ${[...RESERVED_SLUGS].join(', ')}.`,
    tags: ['am-wizard'],
    query: SlugQuerySchema,
    response: SlugAvailabilitySchema,
  })
  slugAvailability(@ValidQuery() q: z.infer<typeof SlugQuerySchema>) {
    return this.orgs.slugAvailability(q.slug, q.orgId);
  }

  @Post('orgs')
  @HttpCode(201)
  @Endpoint({
    summary: 'Wizard step 1: create an org (pending_am_setup); the creator becomes its assigned AM',
    tags: ['am-wizard'],
    body: CreateOrgSchema,
    response: OrgDtoSchema,
    status: 201,
    errors: [409],
  })
  create(@CurrentPrincipal() actor: Principal, @ValidBody() body: z.infer<typeof CreateOrgSchema>) {
    return this.orgs.createOrg(actor, body);
  }

  @Get('orgs')
  @Endpoint({
    summary: 'Orgs, newest first, by status, assigned account manager and a name/slug/email search; each with its AM name',
    tags: ['am-wizard'],
    query: OrgListQuerySchema,
    response: pageSchema(OrgListItemSchema),
  })
  list(@ValidQuery() q: z.infer<typeof OrgListQuerySchema>) {
    return this.orgs.list({ status: q.status, q: q.q, assignedAmId: q.assignedAmId }, { limit: q.limit, after: decodeCursor(q.cursor) });
  }

  @Get('orgs/:orgId')
  @Endpoint({ summary: 'One org', tags: ['am-wizard'], params: OrgIdParamsSchema, response: OrgDtoSchema, errors: [404] })
  get(@ValidParams() p: z.infer<typeof OrgIdParamsSchema>) {
    return this.orgs.get(p.orgId);
  }

  @Patch('orgs/:orgId')
  @Endpoint({
    summary: 'Wizard step 1 re-edit (the slug until the client confirms; assignedAmId by a superadmin)',
    tags: ['am-wizard'],
    params: OrgIdParamsSchema,
    body: UpdateOrgSchema,
    response: OrgDtoSchema,
    errors: [404, 409],
  })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgIdParamsSchema>, @ValidBody() body: z.infer<typeof UpdateOrgSchema>) {
    return this.orgs.updateOrg(actor, p.orgId, body);
  }

  @Post('orgs/:orgId/slug-aliases')
  @HttpCode(201)
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Add a slug alias for a rebrand (superadmin): held for good; lookups by it find the org',
    tags: ['am-wizard'],
    params: OrgIdParamsSchema,
    body: z.object({ slug: OrgSlugSchema }),
    response: z.object({ slug: z.string(), orgId: z.uuid() }),
    status: 201,
    errors: [404, 409],
  })
  addAlias(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgIdParamsSchema>, @ValidBody() body: { slug: string }) {
    return this.orgs.addSlugAlias(actor, p.orgId, body.slug);
  }

  @Get('orgs/:orgId/phase0-status')
  @Endpoint({
    summary: 'The Phase 0 gate (spec 4.2); specialistAssigned and expertMapped are informational',
    tags: ['am-wizard'],
    params: OrgIdParamsSchema,
    response: Phase0StatusSchema,
    errors: [404],
  })
  phase0(@ValidParams() p: z.infer<typeof OrgIdParamsSchema>) {
    return this.orgs.phase0Status(p.orgId);
  }

  @Post('orgs/:orgId/finish')
  @HttpCode(200)
  @Endpoint({
    summary: 'finishOrgSetup: activate without invite (slug reserved for good; no email; no trial clock)',
    description: '409 `phase0_gate_failed` with `details.missing` when the gate fails; 409 `conflict` unless the org is pending_am_setup.',
    tags: ['am-wizard'],
    params: OrgIdParamsSchema,
    response: OrgDtoSchema,
    status: 200,
    errors: [404, 409],
  })
  finish(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgIdParamsSchema>) {
    return this.orgs.finish(actor, p.orgId);
  }
}
