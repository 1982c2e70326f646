import { Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema, decodeCursor, pageSchema } from '../../platform/http/pagination.js';
import { CreateSpecialistSchema, SpecialistDtoSchema, SpecialistIdParamsSchema, UpdateSpecialistSchema } from './specialists.schemas.js';
import { SpecialistsService } from './specialists.service.js';

/** Who may read the pool: superadmins, AMs (who assign from it) and the ops console. */
const READERS = ['superadmin', 'account_manager', 'ai_operator'] as const;
/** The AM wizard's routes (API-MAP "AM wizard, Phase 1"): account managers and superadmins only. */
const WIZARD = ['superadmin', 'account_manager'] as const;
const CatalogQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(200).optional().describe('Part of a name, handle, routing email or skill tag (case-insensitive)'),
});

@Controller()
export class SpecialistsController {
  constructor(private readonly specialists: SpecialistsService) {}

  @Get('specialists')
  @PlatformRoles(...READERS)
  @Endpoint({
    summary: 'The Specialist catalog (the platform pool AMs assign from)',
    tags: ['specialists'],
    query: CatalogQuerySchema,
    response: pageSchema(SpecialistDtoSchema),
  })
  list(@ValidQuery() q: z.infer<typeof CatalogQuerySchema>) {
    return this.specialists.list({ limit: q.limit, after: decodeCursor(q.cursor) }, { q: q.q || undefined });
  }

  @Get('am/specialists')
  @PlatformRoles(...WIZARD)
  @Endpoint({
    summary: 'The platform pool, as the AM wizard lists it',
    tags: ['specialists'],
    query: CatalogQuerySchema,
    response: pageSchema(SpecialistDtoSchema),
  })
  listForWizard(@ValidQuery() q: z.infer<typeof CatalogQuerySchema>) {
    return this.list(q);
  }

  @Get('specialists/:id')
  @PlatformRoles(...READERS)
  @Endpoint({ summary: 'One catalog Specialist', tags: ['specialists'], params: SpecialistIdParamsSchema, response: SpecialistDtoSchema, errors: [404] })
  get(@ValidParams() p: z.infer<typeof SpecialistIdParamsSchema>) {
    return this.specialists.get(p.id);
  }

  @Post('specialists')
  @HttpCode(201)
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Create a Specialist persona (superadmin only)',
    tags: ['specialists'],
    body: CreateSpecialistSchema,
    response: SpecialistDtoSchema,
    status: 201,
    errors: [409],
  })
  create(@CurrentPrincipal() actor: Principal, @ValidBody() body: z.infer<typeof CreateSpecialistSchema>) {
    return this.specialists.createFromApi(actor, body);
  }

  @Patch('specialists/:id')
  @PlatformRoles('superadmin')
  @Endpoint({
    summary: 'Edit a Specialist persona (superadmin only)',
    tags: ['specialists'],
    params: SpecialistIdParamsSchema,
    body: UpdateSpecialistSchema,
    response: SpecialistDtoSchema,
    errors: [404, 409],
  })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof SpecialistIdParamsSchema>, @ValidBody() body: z.infer<typeof UpdateSpecialistSchema>) {
    return this.specialists.update(actor, p.id, body);
  }
}
