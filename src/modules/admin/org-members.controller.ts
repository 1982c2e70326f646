import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { InvitationTokenSchema, InviteMemberSchema, MemberInvitationSchema, MemberSchema, MembersQuerySchema, TransferOwnershipSchema, UpdateMemberRoleSchema } from '../../contracts/admin.js';
import { CurrentPrincipal, OpenWhileSuspended, OrgRoles, RouteOrg } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { pageSchema } from '../../platform/http/pagination.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgMembersService } from './org-members.service.js';

const IdParams = z.object({ id: z.uuid() });
const OrgMemberParams = z.object({ orgId: z.uuid(), userId: z.uuid() });
const OrgParams = z.object({ orgId: z.uuid() });
const TokenParams = z.object({ token: InvitationTokenSchema });
const MembersPage = pageSchema(MemberSchema);

/**
 * Org members (spec 4.6). `/admin/members*` act on the caller's org (or `orgId` of one of
 * theirs; SuperAdmins name any org); `/orgs/:orgId/*` name it in the path.
 */
@Controller()
export class OrgMembersController {
  constructor(private readonly members: OrgMembersService) {}

  @Get('admin/members')
  @Endpoint({
    summary: 'The members of the org, every org role, oldest membership first (joined, then membership)',
    description: 'Any member of the org may read it; superadmins, account managers and AI operators with `orgId`.',
    tags: ['members'],
    query: MembersQuerySchema,
    response: MembersPage,
    errors: [404],
  })
  list(@CurrentPrincipal() p: Principal, @ValidQuery() q: z.infer<typeof MembersQuerySchema>) {
    return this.members.list(p, q.orgId, q);
  }

  @Post('admin/members/invite')
  @HttpCode(201)
  @Endpoint({
    summary: 'Invite someone to the org with a role up to Admin (org_admin with an admin or owner org role)',
    description:
      'A new address becomes a user who joins at once and is mailed how to sign in. An address that already belongs to a user changes nothing: that user is mailed an invitation to accept (POST /admin/members/invitations/{token}/accept). Both answer alike. 409 when already a member or invited; 20 invitations per org and hour (429).',
    tags: ['members'],
    body: InviteMemberSchema,
    response: MemberSchema,
    status: 201,
    errors: [403, 404, 409, 429],
  })
  invite(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof InviteMemberSchema>) {
    return this.members.invite(p, body);
  }

  @Get('admin/members/invitations/:token')
  @OpenWhileSuspended()
  @Endpoint({
    summary: 'The member invitation of a mailed token, for the invited user (signed in as themselves)',
    description: 'Any other caller gets 404; 410 `invite_used` or `invite_expired` once accepted or past its 7 days.',
    tags: ['members'],
    params: TokenParams,
    response: MemberInvitationSchema,
    errors: [404, 410],
  })
  invitation(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof TokenParams>) {
    return this.members.invitation(p, params.token);
  }

  @Post('admin/members/invitations/:token/accept')
  @HttpCode(200)
  @OpenWhileSuspended()
  @Endpoint({
    summary: 'Accept a member invitation: the signed-in invited user joins the org with the invited role',
    description: 'Only the user the invitation was mailed to, not while impersonating (403); anyone else 404; the token works once (410 `invite_used`) and for 7 days (410 `invite_expired`).',
    tags: ['members'],
    params: TokenParams,
    response: MemberSchema,
    status: 200,
    errors: [403, 404, 409, 410],
  })
  accept(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof TokenParams>) {
    return this.members.acceptInvitation(p, params.token);
  }

  @Patch('admin/members/:id/role')
  @Endpoint({
    summary: "Change a member's org role, up to Admin (admin or owner); `:id` is the user id",
    description: "Owner is never granted here (use transfer-ownership); only an owner changes an owner's role, and an org keeps at least one owner (409).",
    tags: ['members'],
    params: IdParams,
    body: UpdateMemberRoleSchema,
    response: MemberSchema,
    errors: [403, 404, 409],
  })
  setRole(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof IdParams>, @ValidBody() body: z.infer<typeof UpdateMemberRoleSchema>) {
    return this.members.setRole(p, params.id, body);
  }

  @Delete('orgs/:orgId/members/:userId')
  @HttpCode(204)
  @OrgRoles({ roles: ['owner', 'admin'], platformRoles: ['superadmin'] })
  @Endpoint({
    summary: 'Remove a member from the org (admin or owner)',
    description: 'Only an owner removes an owner, and never the last one (409).',
    tags: ['members'],
    params: OrgMemberParams,
    response: null,
    status: 204,
    errors: [403, 404, 409],
  })
  async remove(@CurrentPrincipal() p: Principal, @ValidParams() params: z.infer<typeof OrgMemberParams>) {
    await this.members.remove(p, params.orgId, params.userId);
  }

  @Post('orgs/:orgId/transfer-ownership')
  @HttpCode(200)
  @OrgRoles({ roles: ['owner'] })
  @Endpoint({
    summary: 'Hand the org to another member (owner only); the previous owner becomes an admin',
    tags: ['members'],
    params: OrgParams,
    body: TransferOwnershipSchema,
    response: MembersPage,
    status: 200,
    errors: [400, 403, 404],
  })
  transfer(@CurrentPrincipal() p: Principal, @ValidParams() _params: z.infer<typeof OrgParams>, @ValidBody() body: z.infer<typeof TransferOwnershipSchema>, @RouteOrg() scope: OrgScope) {
    return this.members.transferOwnership(p, scope, body.userId);
  }
}
