import { Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import { AssignSpecialistSchema, OsaDtoSchema, UpdateAssignmentSchema } from '../../contracts/assignments.js';
import { CurrentPrincipal, PlatformRoles } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams } from '../../platform/http/endpoint.js';
import { onePage, pageSchema } from '../../platform/http/pagination.js';
import { requestScope } from '../../platform/tenancy/org-scope.js';
import { AssignmentsService } from './assignments.service.js';
import { MailboxesService } from './mailboxes.service.js';

const OrgParams = z.object({ orgId: z.uuid() });
const AssignmentParams = z.object({ orgId: z.uuid(), assignmentId: z.uuid() });
const SpecialistParams = z.object({ orgId: z.uuid(), specialistId: z.uuid() });

/** Every route here is for staff who act on every org (@PlatformRoles). */
const staffScope = (orgId: string) => requestScope(orgId, 'org_wide_role');

/** Specialist assignments (spec 4.2): account managers and superadmins. */
@Controller('am/orgs/:orgId')
@PlatformRoles('account_manager', 'superadmin')
export class AssignmentsController {
  constructor(
    private readonly assignments: AssignmentsService,
    private readonly mailboxes: MailboxesService,
  ) {}

  @Get('specialist-assignments')
  @Endpoint({ summary: "The org's active assignments, oldest first (created, id); one page", tags: ['assignments'], params: OrgParams, response: pageSchema(OsaDtoSchema), errors: [404] })
  async list(@ValidParams() p: z.infer<typeof OrgParams>) {
    return onePage(await this.assignments.list(staffScope(p.orgId)));
  }

  @Post('specialist')
  @HttpCode(201)
  @Endpoint({
    summary: 'Assign a catalog Specialist (the first becomes primary; the workspace alias is generated)',
    description: 'monthlyRate: null or 1..99999 with overrideReason; rateEffectiveFrom/Until bound the override. 400 when no alias can be generated (spec 2.3.1 rule 3).',
    tags: ['assignments'],
    params: OrgParams,
    body: AssignSpecialistSchema,
    response: OsaDtoSchema,
    status: 201,
    errors: [404, 409],
  })
  assign(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgParams>, @ValidBody() body: z.infer<typeof AssignSpecialistSchema>) {
    return this.assignments.assign(actor, staffScope(p.orgId), body);
  }

  @Get('specialist-assignments/:assignmentId')
  @Endpoint({ summary: 'OSA detail: assignment fields, mailbox metadata and the Specialist', tags: ['assignments'], params: AssignmentParams, response: OsaDtoSchema, errors: [404] })
  get(@ValidParams() p: z.infer<typeof AssignmentParams>) {
    return this.assignments.get(staffScope(p.orgId), p.assignmentId);
  }

  @Patch('specialist-assignments/:assignmentId')
  @Endpoint({
    summary: 'Change the monthly rate (a new version in the rate history)',
    tags: ['assignments'],
    params: AssignmentParams,
    body: UpdateAssignmentSchema,
    response: OsaDtoSchema,
    errors: [404],
  })
  update(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof AssignmentParams>, @ValidBody() body: z.infer<typeof UpdateAssignmentSchema>) {
    return this.assignments.updateRate(actor, staffScope(p.orgId), p.assignmentId, body);
  }

  @Delete('specialist/:specialistId')
  @HttpCode(204)
  @Endpoint({ summary: 'Unassign (a primary hands over to the oldest remaining assignment)', tags: ['assignments'], params: SpecialistParams, response: null, status: 204, errors: [404] })
  async unassign(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof SpecialistParams>) {
    await this.assignments.unassign(actor, staffScope(p.orgId), p.specialistId);
  }

  @Post('specialist-assignments/:assignmentId/provision')
  @HttpCode(202)
  @Endpoint({
    summary: 'Provision now: queue the mailbox job (honours the per-org disable, bypasses the environment gate)',
    description: 'mailboxUserId appears when the job has run; 409 when already provisioned, archived, or disabled for the org.',
    tags: ['mailboxes'],
    params: AssignmentParams,
    response: OsaDtoSchema,
    status: 202,
    errors: [404, 409],
  })
  provision(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof AssignmentParams>) {
    return this.mailboxes.provision(actor, staffScope(p.orgId), p.assignmentId);
  }

  @Post('specialist-assignments/:assignmentId/suspend')
  @HttpCode(200)
  @Endpoint({
    summary: 'Suspend the mailbox: inbound and outbound mail stop (409 without a mailbox user, when suspended or archived)',
    tags: ['mailboxes'],
    params: AssignmentParams,
    response: OsaDtoSchema,
    status: 200,
    errors: [404, 409],
  })
  suspend(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof AssignmentParams>) {
    return this.mailboxes.suspend(actor, staffScope(p.orgId), p.assignmentId);
  }

  @Post('specialist-assignments/:assignmentId/restore')
  @HttpCode(200)
  @Endpoint({ summary: 'Restore a suspended mailbox', tags: ['mailboxes'], params: AssignmentParams, response: OsaDtoSchema, status: 200, errors: [404, 409] })
  restore(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof AssignmentParams>) {
    return this.mailboxes.restore(actor, staffScope(p.orgId), p.assignmentId);
  }
}
