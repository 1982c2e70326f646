import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { ChannelHealthSchema, CreateIntegrationSchema, InboundEventDtoSchema, IntegrationDtoSchema, UpdateIntegrationSchema, WebhookUrlsSchema } from '../../contracts/channels.js';
import { ORG_WIDE_ROLES } from '../../contracts/roles.js';
import { CurrentPrincipal, OrgRoles, PlatformRoles, RouteOrg, type OrgRolesPolicy } from '../../platform/auth/auth.decorators.js';
import { requestScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema, onePage, pageSchema } from '../../platform/http/pagination.js';
import { ChannelsService } from './channels.service.js';
import { IntegrationsService } from './integrations.service.js';

const OrgParams = z.object({ orgId: z.uuid() });
const IntegrationParams = z.object({ orgId: z.uuid(), id: z.uuid() });
const TAGS = ['channels'];
/** The org's owners and admins, and internal staff acting on every org. */
const MANAGERS: OrgRolesPolicy = { roles: ['owner', 'admin'], platformRoles: [...ORG_WIDE_ROLES] };
/** Who changes an org's integrations: its owners and admins, account managers and superadmins; ai_operator only reads. */
const EDITORS: OrgRolesPolicy = { roles: ['owner', 'admin'], platformRoles: ['superadmin', 'account_manager'] };

/** Integrations, channel health and webhook URLs of an org (spec 4.6). */
@Controller('orgs/:orgId')
export class IntegrationsController {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly channels: ChannelsService,
  ) {}

  @Get('integrations')
  @OrgRoles(MANAGERS)
  @Endpoint({ summary: "The org's channel integrations (secrets are never returned)", tags: TAGS, params: OrgParams, response: pageSchema(IntegrationDtoSchema), errors: [403, 404] })
  async list(@ValidParams() _p: z.infer<typeof OrgParams>, @RouteOrg() scope: OrgScope) {
    return onePage(await this.integrations.list(scope));
  }

  @Post('integrations')
  @HttpCode(201)
  @OrgRoles(EDITORS)
  @Endpoint({
    summary:
      'Connect a channel: externalId is the workspace or tenant id; config.whitelist the messaging-a sender numbers (E.164 or whatsapp:+E.164), config.numbers the numbers of an own messaging-a account (with secrets accountSid and authToken); secrets are write-only and sealed (webhookSecret at least 32 characters). The binding starts pending with a verificationCode: its inbound traffic is quarantined (binding_unverified) until verified. Another org holding the same value is never revealed.',
    tags: TAGS,
    params: OrgParams,
    body: CreateIntegrationSchema,
    response: IntegrationDtoSchema,
    status: 201,
    errors: [403, 404, 409],
  })
  create(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgParams>, @ValidBody() body: z.infer<typeof CreateIntegrationSchema>, @RouteOrg() scope: OrgScope) {
    return this.integrations.create(actor, scope, body);
  }

  @Get('integrations/:id')
  @OrgRoles(MANAGERS)
  @Endpoint({ summary: 'One integration', tags: TAGS, params: IntegrationParams, response: IntegrationDtoSchema, errors: [403, 404] })
  get(@ValidParams() p: z.infer<typeof IntegrationParams>, @RouteOrg() scope: OrgScope) {
    return this.integrations.get(scope, p.id);
  }

  @Patch('integrations/:id')
  @OrgRoles(EDITORS)
  @Endpoint({
    summary: 'Change an integration (secrets given replace those names; the others stay). A changed workspace, tenant, number or webhook secret is pending again, with a new code',
    tags: TAGS,
    params: IntegrationParams,
    body: UpdateIntegrationSchema,
    response: IntegrationDtoSchema,
    errors: [403, 404, 409],
  })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IntegrationParams>, @ValidBody() body: z.infer<typeof UpdateIntegrationSchema>, @RouteOrg() scope: OrgScope) {
    return this.integrations.update(actor, scope, p.id, body);
  }

  @Post('integrations/:id/verify')
  @HttpCode(204)
  @PlatformRoles('superadmin', 'account_manager')
  @Endpoint({
    summary:
      "Staff verification of a pending binding (account_manager or superadmin): its workspace, tenant, sender numbers or secret route to this org from now on. 409 when one of them is verified for another org. The org's own proof is a message through the channel that contains the integration's verificationCode; that message only verifies (it gets no turn).",
    tags: TAGS,
    params: IntegrationParams,
    response: null,
    status: 204,
    errors: [403, 404, 409],
  })
  async verify(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IntegrationParams>) {
    // @PlatformRoles let only staff who act on every org through.
    await this.integrations.verify(actor, requestScope(p.orgId, 'org_wide_role'), p.id);
  }

  @Delete('integrations/:id')
  @HttpCode(204)
  @OrgRoles(EDITORS)
  @Endpoint({ summary: 'Disconnect a channel', tags: TAGS, params: IntegrationParams, response: null, status: 204, errors: [403, 404] })
  async remove(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IntegrationParams>, @RouteOrg() scope: OrgScope) {
    await this.integrations.remove(actor, scope, p.id);
  }

  @Get('channels/status')
  @OrgRoles(MANAGERS)
  @Endpoint({
    summary: 'Health per channel: last inbound and outbound, breaker state, recent failures, delivery (ok, retrying, failing)',
    tags: TAGS,
    params: OrgParams,
    response: pageSchema(ChannelHealthSchema),
    errors: [403, 404],
  })
  async status(@ValidParams() _p: z.infer<typeof OrgParams>, @RouteOrg() scope: OrgScope) {
    return onePage(await this.channels.health(scope));
  }

  @Get('channels/webhook-urls')
  @OrgRoles(MANAGERS)
  @Endpoint({ summary: 'The webhook URL of each channel, to paste into the vendor side', tags: TAGS, params: OrgParams, response: WebhookUrlsSchema, errors: [403, 404] })
  async webhookUrls(@ValidParams() p: z.infer<typeof OrgParams>) {
    await this.channels.requireOrg(p.orgId);
    return this.integrations.webhookUrls();
  }
}

const QuarantineQuery = PageQuerySchema.extend({ orgId: z.uuid().optional() });

/** Ops: inbound events kept without a turn (unresolved org, quota, suspended mailbox...). */
@Controller('ops/channels')
@PlatformRoles('superadmin', 'account_manager', 'ai_operator')
export class ChannelsOpsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get('quarantine')
  @Endpoint({ summary: 'Quarantined inbound events, newest first', tags: TAGS, query: QuarantineQuery, response: pageSchema(InboundEventDtoSchema) })
  quarantine(@ValidQuery() q: z.infer<typeof QuarantineQuery>) {
    return this.channels.quarantined(q);
  }
}
