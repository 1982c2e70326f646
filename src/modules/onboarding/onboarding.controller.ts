import { Controller, Get, HttpCode, Ip, Post } from '@nestjs/common';
import { z } from 'zod';
import { TokenResponseSchema } from '../../contracts/auth.js';
import { SlugAvailabilitySchema } from '../../contracts/orgs.js';
import { CurrentPrincipal, PlatformRoles, Public } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { requestScope } from '../../platform/tenancy/org-scope.js';
import { PageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { OrgIdParamsSchema } from '../orgs/index.js';
import {
  CompleteOnboardingResponseSchema,
  CompleteOnboardingSchema,
  InviteRequestSchema,
  InviteResponseSchema,
  InviteTokenBodySchema,
  OnboardingLinkSchema,
  OnboardingViewSchema,
  SpecialistPreviewSchema,
  SubdomainQuerySchema,
  TokenParamsSchema,
  VerifyInviteOtpSchema,
} from './onboarding.schemas.js';
import { OnboardingService } from './onboarding.service.js';

@Controller()
export class OnboardingController {
  constructor(private readonly onboarding: OnboardingService) {}

  @Post('am/orgs/:orgId/invite')
  @HttpCode(200)
  @PlatformRoles('account_manager', 'superadmin')
  @Endpoint({
    summary: 'sendOrgInvite: the gate re-checked, the org pending the client, the invite mailed (again = resend: new 7-day window, same link)',
    tags: ['onboarding'],
    params: OrgIdParamsSchema,
    body: InviteRequestSchema,
    response: InviteResponseSchema,
    status: 200,
    errors: [404, 409],
  })
  invite(@CurrentPrincipal() actor: Principal, @ValidParams() p: z.infer<typeof OrgIdParamsSchema>, @ValidBody() body: z.infer<typeof InviteRequestSchema>) {
    return this.onboarding.sendInvite(actor, requestScope(p.orgId, 'org_wide_role'), body);
  }

  @Get('am/orgs/:orgId/onboarding-link')
  @PlatformRoles('account_manager', 'superadmin')
  @Endpoint({ summary: 'The onboarding link, before and after the invite (expiresAt null until sent)', tags: ['onboarding'], params: OrgIdParamsSchema, response: OnboardingLinkSchema, errors: [404] })
  link(@ValidParams() p: z.infer<typeof OrgIdParamsSchema>) {
    return this.onboarding.onboardingLink(requestScope(p.orgId, 'org_wide_role'));
  }

  @Post('auth/send-invite-otp')
  @Public()
  @HttpCode(204)
  @Endpoint({
    summary: "Mail a 6-digit onboarding code to the invite's admin email",
    description: 'At most 5 codes per invite in 15 minutes (429 after).',
    tags: ['onboarding'],
    body: InviteTokenBodySchema,
    response: null,
    status: 204,
    errors: [404, 410],
  })
  async sendOtp(@ValidBody() body: z.infer<typeof InviteTokenBodySchema>, @Ip() ip: string) {
    await this.onboarding.sendInviteOtp(body.token, ip);
  }

  @Post('auth/verify-invite-otp')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Sign the invited admin in with the onboarding code (single use per invite: then 410 invite_used)',
    description: 'At most 5 wrong codes per invite in total, whatever the number of codes sent: then 429 until the account manager sends the invite again.',
    tags: ['onboarding'],
    body: VerifyInviteOtpSchema,
    response: TokenResponseSchema,
    status: 200,
    errors: [401, 404, 410],
  })
  verifyOtp(@ValidBody() body: z.infer<typeof VerifyInviteOtpSchema>, @Ip() ip: string) {
    return this.onboarding.verifyInviteOtp(body.token, body.code, ip);
  }

  @Get('onboarding/:token')
  @Public()
  @Endpoint({ summary: 'What the client confirms in Phase 2', tags: ['onboarding'], params: TokenParamsSchema, response: OnboardingViewSchema, errors: [404, 410] })
  view(@ValidParams() p: z.infer<typeof TokenParamsSchema>) {
    return this.onboarding.view(p.token);
  }

  @Get('onboarding/:token/subdomain-availability')
  @Public()
  @Endpoint({
    summary: 'Real-time check of the subdomain the client confirms in Phase 2, scoped by the invite',
    description: "The wizard's rules (spec 2.1): the invite's own org never counts as taking it; of other orgs only available or taken is said.",
    tags: ['onboarding'],
    params: TokenParamsSchema,
    query: SubdomainQuerySchema,
    response: SlugAvailabilitySchema,
    errors: [404, 410],
  })
  subdomainAvailability(@ValidParams() p: z.infer<typeof TokenParamsSchema>, @ValidQuery() q: z.infer<typeof SubdomainQuerySchema>) {
    return this.onboarding.subdomainAvailability(p.token, q.slug);
  }

  @Get('onboarding/:token/specialist')
  @Public()
  @Endpoint({
    summary: 'The preassigned Specialist with its monthlyRate ({amount, currency, source} or null)',
    tags: ['onboarding'],
    params: TokenParamsSchema,
    response: SpecialistPreviewSchema,
    errors: [404, 410],
  })
  specialist(@ValidParams() p: z.infer<typeof TokenParamsSchema>) {
    return this.onboarding.preassignedSpecialist(p.token);
  }

  @Get('onboarding/:token/specialists')
  @Public()
  @Endpoint({
    summary: 'The pool the client picks from when none is preassigned, in catalog order (oldest first: created, id)',
    tags: ['onboarding'],
    params: TokenParamsSchema,
    query: PageQuerySchema,
    response: pageSchema(SpecialistPreviewSchema),
    errors: [404, 410],
  })
  specialists(@ValidParams() p: z.infer<typeof TokenParamsSchema>, @ValidQuery() q: z.infer<typeof PageQuerySchema>) {
    return this.onboarding.pool(p.token, q);
  }

  @Post('onboarding/:token/complete')
  @HttpCode(200)
  @Endpoint({
    summary: 'Complete Phase 2 with the token from verify-invite-otp: org active, slug reserved, trial started, welcome emails',
    description: 'specialistId is required unless a Specialist was preassigned. 409 when the slug is taken meanwhile (nothing is written).',
    tags: ['onboarding'],
    params: TokenParamsSchema,
    body: CompleteOnboardingSchema,
    response: CompleteOnboardingResponseSchema,
    status: 200,
    errors: [403, 404, 409, 410],
  })
  complete(@CurrentPrincipal() principal: Principal, @ValidParams() p: z.infer<typeof TokenParamsSchema>, @ValidBody() body: z.infer<typeof CompleteOnboardingSchema>) {
    return this.onboarding.complete(principal, p.token, body);
  }
}
