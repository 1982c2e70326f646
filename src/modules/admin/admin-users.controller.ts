import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { AdminUserDetailSchema, AdminUserSchema, AdminUsersQuerySchema, AuditItemSchema, SetUserPasswordSchema, UpdateUserRoleSchema, UpdateUserSchema } from '../../contracts/admin.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { PageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { AdminUsersService } from './admin-users.service.js';

const IdParams = z.object({ id: z.uuid() });
const RemoveQuery = z.object({ hard: z.enum(['true', 'false']).optional() });

/** SuperAdmin user administration (spec 4.7); every route needs the superadmin platform role. */
@Controller('admin/users')
@PlatformRoles('superadmin')
export class AdminUsersController {
  constructor(private readonly admin: AdminUsersService) {}

  @Get()
  @Endpoint({
    summary: 'Users, newest first, by role, status and a name/email search (removed users left out)',
    tags: ['admin'],
    query: AdminUsersQuerySchema,
    response: pageSchema(AdminUserSchema),
  })
  list(@ValidQuery() q: z.infer<typeof AdminUsersQuerySchema>) {
    return this.admin.list(q);
  }

  @Get(':id')
  @Endpoint({ summary: 'One user with their org memberships', tags: ['admin'], params: IdParams, response: AdminUserDetailSchema, errors: [404] })
  detail(@ValidParams() p: z.infer<typeof IdParams>) {
    return this.admin.detail(p.id);
  }

  @Get(':id/activity')
  @Endpoint({
    summary: 'Audit rows of actions the user performed (also while impersonating), newest first',
    tags: ['admin'],
    params: IdParams,
    query: PageQuerySchema,
    response: pageSchema(AuditItemSchema),
    errors: [404],
  })
  activity(@ValidParams() p: z.infer<typeof IdParams>, @ValidQuery() q: z.infer<typeof PageQuerySchema>) {
    return this.admin.activity(p.id, q);
  }

  @Patch(':id')
  @Endpoint({
    summary: 'Edit a user: only the changed fields among name, email, platformRole, status',
    description:
      'An empty name clears it; the password is never set here. Changing email or platformRole, or setting status to suspended or deactivated, ' +
      "revokes the user's sessions (passwordChangedAt moves); a name-only edit does not. Audited as `admin.user.updated` with a from/to diff. " +
      "Refusals (spec 7.2): 409 'Email already in use' (details.field = email); 403 'Cannot change your own SuperAdmin role'; " +
      "403 'Cannot suspend or deactivate your own account'; 409 'Cannot demote the only remaining SuperAdmin'; " +
      "409 'Cannot suspend or deactivate the only remaining SuperAdmin'; legacy roles fail validation (400).",
    tags: ['admin'],
    params: IdParams,
    body: UpdateUserSchema,
    response: AdminUserDetailSchema,
    errors: [403, 404, 409],
  })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof UpdateUserSchema>) {
    return this.admin.update(actor, p.id, body);
  }

  @Patch(':id/role')
  @Endpoint({
    summary: "Change a user's platform role (audited as `admin.user.role_updated`; revokes the user's sessions)",
    tags: ['admin'],
    params: IdParams,
    body: UpdateUserRoleSchema,
    response: AdminUserDetailSchema,
    errors: [403, 404, 409],
  })
  setRole(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof UpdateUserRoleSchema>) {
    return this.admin.setRole(actor, p.id, body.platformRole);
  }

  @Patch(':id/password')
  @HttpCode(204)
  @Endpoint({ summary: "Set a user's password (revokes the user's sessions)", tags: ['admin'], params: IdParams, body: SetUserPasswordSchema, response: null, status: 204, errors: [404, 409] })
  async setPassword(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof SetUserPasswordSchema>) {
    await this.admin.setPassword(actor, p.id, body.password);
  }

  @Post(':id/password-reset')
  @HttpCode(204)
  @Endpoint({
    summary: 'Mail the user a 6-digit reset code (the caller never sees it); redeemed at POST /auth/reset-password',
    description:
      "Only an active user gets a code: otherwise 400 'Cannot send a password reset to a non-active user'. " +
      'More than 5 initiations by one SuperAdmin in an hour answer 429 `rate_limit` (counted from the audit rows `admin.user.password_reset_initiated`).',
    tags: ['admin'],
    params: IdParams,
    response: null,
    status: 204,
    errors: [400, 404, 429],
  })
  async sendPasswordReset(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>) {
    await this.admin.sendPasswordReset(actor, p.id);
  }

  @Delete(':id')
  @HttpCode(204)
  @Endpoint({
    summary: 'Remove a user: anonymise (default), or `?hard=true` to delete the row (not in production)',
    description: 'The rules of deactivation apply (not yourself, not the last active SuperAdmin); the only owner of an org is refused until ownership moves.',
    tags: ['admin'],
    params: IdParams,
    query: RemoveQuery,
    response: null,
    status: 204,
    errors: [403, 404, 409],
  })
  async remove(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof IdParams>, @ValidQuery() q: z.infer<typeof RemoveQuery>) {
    await this.admin.remove(actor, p.id, q.hard === 'true');
  }
}
