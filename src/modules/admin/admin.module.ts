import { Module, type OnModuleInit } from '@nestjs/common';
import { RequestAuthenticator } from '../../platform/auth/request-auth.js';
import { AuthModule } from '../auth/index.js';
import { OrgsModule } from '../orgs/index.js';
import { UsersModule } from '../users/index.js';
import { AdminUsersController } from './admin-users.controller.js';
import { AdminUsersService } from './admin-users.service.js';
import { ImpersonationController } from './impersonation.controller.js';
import { ImpersonationRepository } from './impersonation.repository.js';
import { ImpersonationService } from './impersonation.service.js';
import { OrgMemberInvitationsRepository } from './org-member-invitations.repository.js';
import { OrgMembersController } from './org-members.controller.js';
import { OrgMembersService } from './org-members.service.js';

/** Administration: SuperAdmin user management, impersonation and org members (spec 4.6, 4.7, 5.8). */
@Module({
  imports: [UsersModule, OrgsModule, AuthModule],
  controllers: [AdminUsersController, ImpersonationController, OrgMembersController],
  providers: [AdminUsersService, ImpersonationService, ImpersonationRepository, OrgMembersService, OrgMemberInvitationsRepository],
  exports: [ImpersonationService],
})
export class AdminModule implements OnModuleInit {
  constructor(
    private readonly impersonation: ImpersonationService,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  onModuleInit(): void {
    // Impersonation tokens are refused until this module says their session is open.
    this.authenticator.setImpersonationCheck((claims) => this.impersonation.isOpen(claims));
  }
}
