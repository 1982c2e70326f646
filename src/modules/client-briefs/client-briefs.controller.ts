import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { ClientBriefDtoSchema, ClientBriefListQuerySchema, CreateClientBriefSchema, UpdateClientBriefSchema } from '../../contracts/client-briefs.js';
import { CurrentPrincipal } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { ClientBriefsService } from './client-briefs.service.js';

const IdParams = z.object({ id: z.uuid() });
const WHO =
  'Read by every member of the org, AI operators, account managers, superadmins, and Experts whose grants cover the org; ' +
  "edited by the org's owners and admins, account managers and superadmins. Another org's brief answers 404.";

/** Client briefs (spec 9.2; formerly environment profiles). */
@Controller('client-briefs')
export class ClientBriefsController {
  constructor(private readonly briefs: ClientBriefsService) {}

  @Get()
  @Endpoint({
    summary: "The org's client briefs, newest first",
    description: `A client's org comes from its memberships (orgId needed only with several); internal roles pass orgId. ${WHO}`,
    tags: ['client-briefs'],
    query: ClientBriefListQuerySchema,
    response: pageSchema(ClientBriefDtoSchema),
    errors: [404],
  })
  list(@CurrentPrincipal() actor: Principal, @ValidQuery() q: z.infer<typeof ClientBriefListQuerySchema>) {
    return this.briefs.list(actor, q);
  }

  @Post()
  @HttpCode(201)
  @Endpoint({ summary: 'Write a client brief', description: WHO, tags: ['client-briefs'], body: CreateClientBriefSchema, response: ClientBriefDtoSchema, status: 201, errors: [403, 404] })
  create(@CurrentPrincipal() actor: Principal, @ValidBody() body: z.infer<typeof CreateClientBriefSchema>) {
    return this.briefs.create(actor, body);
  }

  @Get(':id')
  @Endpoint({ summary: 'One client brief', description: WHO, tags: ['client-briefs'], params: IdParams, response: ClientBriefDtoSchema, errors: [404] })
  get(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>) {
    return this.briefs.get(actor, p.id);
  }

  @Patch(':id')
  @Endpoint({ summary: 'Edit a client brief', description: WHO, tags: ['client-briefs'], params: IdParams, body: UpdateClientBriefSchema, response: ClientBriefDtoSchema, errors: [403, 404] })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof UpdateClientBriefSchema>) {
    return this.briefs.update(actor, p.id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Endpoint({ summary: 'Delete a client brief', description: WHO, tags: ['client-briefs'], params: IdParams, response: null, status: 204, errors: [403, 404] })
  async remove(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>) {
    await this.briefs.remove(actor, p.id);
  }
}
