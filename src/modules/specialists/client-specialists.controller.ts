import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { ClientSpecialistSchema } from '../../contracts/specialists.js';
import { CurrentPrincipal } from '../../platform/auth/auth.decorators.js';
import { memberScope } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidQuery } from '../../platform/http/endpoint.js';
import { onePage, pageSchema } from '../../platform/http/pagination.js';
import { AssignmentsService } from './assignments.service.js';

const OrgQuery = z.object({ orgId: z.uuid().optional() });

/** The client portal's view of its Specialists (spec 4.6): personas only, never an Expert. */
@Controller('client')
export class ClientSpecialistsController {
  constructor(private readonly assignments: AssignmentsService) {}

  @Get('specialists')
  @Endpoint({
    summary: "The caller's org's assigned Specialists (client view), oldest assignment first; one page",
    tags: ['client'],
    query: OrgQuery,
    response: pageSchema(ClientSpecialistSchema),
    errors: [404],
  })
  async list(@CurrentPrincipal() principal: Principal, @ValidQuery() q: z.infer<typeof OrgQuery>) {
    const items = (await this.assignments.list(memberScope(principal, q.orgId))).map((a) => ({
      assignmentId: a.id,
      specialistId: a.specialistId,
      name: a.specialist.name,
      avatarUrl: a.specialist.avatarUrl,
      skillTags: a.specialist.skillTags,
      email_alias: a.email_alias,
      isPrimary: a.isPrimary,
    }));
    return onePage(items);
  }
}
