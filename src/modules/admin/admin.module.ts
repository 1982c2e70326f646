import { providePort } from '../../platform/ports/ports.js';
import { Module } from '@nestjs/common';
import { IMPERSONATION_CHECK } from '../../platform/auth/request-auth.js';
import { AuthModule } from '../auth/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { AdminUsersController } from './admin-users.controller.js';
import { AdminUsersService } from './admin-users.service.js';
import { AuditLogController } from './audit-log.controller.js';
import { AuditLogService } from './audit-log.service.js';
import { ImpersonationController } from './impersonation.controller.js';
import { ImpersonationRepository } from './impersonation.repository.js';
import { ImpersonationService } from './impersonation.service.js';
import { OrgMemberInvitationsRepository } from './org-member-invitations.repository.js';
import { OrgMembersController } from './org-members.controller.js';
import { OrgMembersService } from './org-members.service.js';

/** Administration: SuperAdmin user management, the audit log, impersonation and org members (spec 4.6, 4.7, 5.8, 6.3). */
@Module({
  imports: [UsersModule, OrgsModule, SpecialistsModule, AuthModule],
  controllers: [AdminUsersController, ImpersonationController, OrgMembersController, AuditLogController],
  providers: [
    AdminUsersService,
    AuditLogService,
    ImpersonationService,
    ImpersonationRepository,
    OrgMembersService,
    OrgMemberInvitationsRepository,
    // Impersonation tokens are honoured only while this module says their session is open.
    providePort(IMPERSONATION_CHECK, ImpersonationService),
  ],
  exports: [ImpersonationService],
})
export class AdminModule {}
