import { Controller, Get, Put } from '@nestjs/common';
import { z } from 'zod';
import { SetToolPermissionSchema, TOOL_NAME_PATTERN, ToolDescriptorSchema, ToolPermissionDtoSchema } from '../../contracts/agent.js';
import { CurrentPrincipal, OrgRoles, RouteOrg } from '../../platform/auth/auth.decorators.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams } from '../../platform/http/endpoint.js';
import { onePage, pageSchema } from '../../platform/http/pagination.js';
import { AgentToolsService } from './tools.service.js';

const ToolParams = z.object({ toolName: z.string().regex(TOOL_NAME_PATTERN) });
const OrgParams = z.object({ orgId: z.uuid() });
const OrgToolParams = OrgParams.extend({ toolName: z.string().regex(TOOL_NAME_PATTERN) });

/** Tool descriptors (spec 4.6, 9.1: the versioned agent-api path). Any signed-in caller. */
@Controller('v1/agent-api/tools')
export class AgentToolsController {
  constructor(private readonly tools: AgentToolsService) {}

  @Get()
  @Endpoint({ summary: 'The agent tool descriptors', tags: ['agent'], response: pageSchema(ToolDescriptorSchema) })
  list() {
    return onePage(this.tools.descriptors());
  }

  @Get(':toolName')
  @Endpoint({
    summary: "One tool descriptor: kind 'bespoke' (runs in this service) or 'nango' (hosted integration)",
    tags: ['agent'],
    params: ToolParams,
    response: ToolDescriptorSchema,
    errors: [404],
  })
  get(@ValidParams() p: z.infer<typeof ToolParams>) {
    return this.tools.descriptor(p.toolName);
  }
}

/** Which tools an org's Specialists may use (spec 4.6). */
@Controller('orgs/:orgId/tool-permissions')
export class ToolPermissionsController {
  constructor(private readonly tools: AgentToolsService) {}

  @Get()
  @OrgRoles({ roles: ['owner', 'admin'], platformRoles: ['superadmin', 'account_manager', 'ai_operator'] })
  @Endpoint({
    summary: "The org's permission for every tool, and whether the model is offered it",
    description: 'A tool the org never set follows its default (bespoke tools on, hosted integrations off). A hosted integration is offered only once a connection exists.',
    tags: ['agent'],
    params: OrgParams,
    response: pageSchema(ToolPermissionDtoSchema),
    errors: [404],
  })
  async list(@ValidParams() _p: z.infer<typeof OrgParams>, @RouteOrg() scope: OrgScope) {
    return onePage(await this.tools.permissions(scope));
  }

  @Put(':toolName')
  @OrgRoles({ roles: ['owner', 'admin'], platformRoles: ['superadmin', 'account_manager'] })
  @Endpoint({
    summary: 'Permit or forbid one tool for the org (audited)',
    tags: ['agent'],
    params: OrgToolParams,
    body: SetToolPermissionSchema,
    response: ToolPermissionDtoSchema,
    errors: [404],
  })
  set(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgToolParams>, @ValidBody() body: z.infer<typeof SetToolPermissionSchema>, @RouteOrg() scope: OrgScope) {
    return this.tools.setPermission(actor, scope, p.toolName, body.enabled);
  }
}
