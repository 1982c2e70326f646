import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { ORG_WIDE_ROLES } from '../../contracts/roles.js';
import { OrgRoles } from '../../platform/auth/auth.decorators.js';
import { Endpoint, ValidParams } from '../../platform/http/endpoint.js';
import { OrgDtoSchema, OrgIdParamsSchema } from './orgs.schemas.js';
import { OrgsService } from './orgs.service.js';

@Controller('orgs')
export class OrgsController {
  constructor(private readonly orgs: OrgsService) {}

  @Get(':orgId')
  @OrgRoles({ roles: ['owner', 'admin', 'member', 'billing'], platformRoles: [...ORG_WIDE_ROLES] })
  @Endpoint({
    summary: 'One org, for its members, account managers and superadmins (another org answers 404)',
    tags: ['orgs'],
    params: OrgIdParamsSchema,
    response: OrgDtoSchema,
    errors: [404],
  })
  get(@ValidParams() p: z.infer<typeof OrgIdParamsSchema>) {
    return this.orgs.get(p.orgId);
  }
}
