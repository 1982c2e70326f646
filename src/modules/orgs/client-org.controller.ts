import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { TrialInfoSchema } from '../../contracts/orgs.js';
import { CurrentPrincipal } from '../../platform/auth/auth.decorators.js';
import { memberOrgId } from '../../platform/auth/org-scope.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Clock } from '../../platform/clock/clock.js';
import { Endpoint, ValidQuery } from '../../platform/http/endpoint.js';
import { OrgsService } from './orgs.service.js';
import { TRIAL_ENDING_DAYS } from './orgs.rules.js';

const OrgQuery = z.object({ orgId: z.uuid().optional() });

@Controller('client')
export class ClientOrgController {
  constructor(
    private readonly orgs: OrgsService,
    private readonly clock: Clock,
  ) {}

  @Get('trial-info')
  @Endpoint({ summary: "Trial banner data of the caller's org", tags: ['client'], query: OrgQuery, response: TrialInfoSchema, errors: [404] })
  async trialInfo(@CurrentPrincipal() principal: Principal, @ValidQuery() q: z.infer<typeof OrgQuery>) {
    const org = await this.orgs.get(memberOrgId(principal, q.orgId));
    const today = this.clock.now().toISOString().slice(0, 10);
    const daysLeft = org.trialEndDate ? Math.max(0, Math.round((Date.parse(`${org.trialEndDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000)) : null;
    const inTrial = org.trialMode === 'default' && org.trialStartedAt !== null && daysLeft !== null;
    return {
      orgId: org.id,
      status: org.status,
      trialMode: org.trialMode,
      trialStartedAt: org.trialStartedAt,
      trialEndDate: org.trialEndDate,
      daysLeft,
      ending: inTrial && daysLeft! <= TRIAL_ENDING_DAYS,
      showBanner: inTrial,
    };
  }
}
