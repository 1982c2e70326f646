import { Module } from '@nestjs/common';
import { providePort } from '../../platform/ports/ports.js';
import { ORG_ASSIGNMENTS, OrgsModule, orgsConfig } from '../orgs/index.js';
import { AssignmentsController } from './assignments.controller.js';
import { ClientSpecialistsController } from './client-specialists.controller.js';
import { AssignmentsRepository } from './assignments.repository.js';
import { AssignmentsService } from './assignments.service.js';
import { DatabaseMailboxProvider, MAILBOX_PROVIDER } from './mailbox.provider.js';
import { MailboxesService } from './mailboxes.service.js';
import { SpecialistsController } from './specialists.controller.js';
import { SpecialistsRepository } from './specialists.repository.js';
import { specialistsConfig } from './specialists.config.js';
import { SpecialistsService } from './specialists.service.js';

@Module({
  imports: [OrgsModule],
  controllers: [SpecialistsController, AssignmentsController, ClientSpecialistsController],
  providers: [
    SpecialistsRepository,
    SpecialistsService,
    AssignmentsRepository,
    AssignmentsService,
    // The org's Phase 0 status asks whether a Specialist is assigned; its slug's aliases follow a change.
    providePort(ORG_ASSIGNMENTS, AssignmentsService),
    MailboxesService,
    specialistsConfig.provider,
    orgsConfig.provider,
    // The default provider keeps mailboxes in our database; a hosted-workspace adapter replaces it here.
    { provide: MAILBOX_PROVIDER, useClass: DatabaseMailboxProvider },
  ],
  exports: [SpecialistsService, AssignmentsService, MailboxesService],
})
export class SpecialistsModule {}
