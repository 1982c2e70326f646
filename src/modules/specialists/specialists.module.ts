import { Module, type OnModuleInit } from '@nestjs/common';
import { NotificationsModule } from '../notifications/index.js';
import { OrgsModule, OrgsService } from '../orgs/index.js';
import { AssignmentsController } from './assignments.controller.js';
import { ClientSpecialistsController } from './client-specialists.controller.js';
import { AssignmentsRepository } from './assignments.repository.js';
import { AssignmentsService } from './assignments.service.js';
import { DatabaseMailboxProvider, MAILBOX_PROVIDER } from './mailbox.provider.js';
import { MailboxesService } from './mailboxes.service.js';
import { SpecialistsController } from './specialists.controller.js';
import { SpecialistsRepository } from './specialists.repository.js';
import { SpecialistsService } from './specialists.service.js';

@Module({
  imports: [OrgsModule, NotificationsModule],
  controllers: [SpecialistsController, AssignmentsController, ClientSpecialistsController],
  providers: [
    SpecialistsRepository,
    SpecialistsService,
    AssignmentsRepository,
    AssignmentsService,
    MailboxesService,
    // The default provider keeps mailboxes in our database; a hosted-workspace adapter replaces it here.
    { provide: MAILBOX_PROVIDER, useClass: DatabaseMailboxProvider },
  ],
  exports: [SpecialistsService, AssignmentsService],
})
export class SpecialistsModule implements OnModuleInit {
  constructor(
    private readonly orgs: OrgsService,
    private readonly assignments: AssignmentsService,
  ) {}

  onModuleInit(): void {
    this.orgs.setPhase0Indicators({ specialistAssigned: (orgId) => this.assignments.hasAssignment(orgId) });
    this.orgs.setSlugFollower((actor, orgId, slug) => this.assignments.followSlug(actor, orgId, slug));
  }
}
