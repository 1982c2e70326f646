import { Controller, Get, Patch } from '@nestjs/common';
import { z } from 'zod';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AmProfileSchema } from '../../contracts/orgs.js';
import { Endpoint, ValidBody } from '../../platform/http/endpoint.js';
import { UsersService } from './users.service.js';

const UpdateAmProfileSchema = z.object({ name: z.string().trim().max(200) });

/** The AM profile: one global name shared by every org the AM works on (spec 2.1; gate rule 2). */
@Controller('am/profile')
@PlatformRoles('account_manager', 'superadmin')
export class AmProfileController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @Endpoint({ summary: "The caller's AM profile", tags: ['am-wizard'], response: AmProfileSchema })
  get(@CurrentPrincipal() p: Principal) {
    return { id: p.userId, email: p.email, name: p.name };
  }

  @Patch()
  @Endpoint({ summary: "Edit the caller's AM profile name (an empty name clears it)", tags: ['am-wizard'], body: UpdateAmProfileSchema, response: AmProfileSchema })
  async update(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof UpdateAmProfileSchema>) {
    const row = await this.users.setName(p.userId, body.name);
    return { id: row.id, email: row.email, name: row.name };
  }
}
