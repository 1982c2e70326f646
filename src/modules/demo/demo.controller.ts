import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { DemoAccountsSchema, DemoLoginResponseSchema, DemoLoginSchema } from '../../contracts/auth.js';
import { Public } from '../../platform/auth/auth.decorators.js';
import { Endpoint, ValidBody } from '../../platform/http/endpoint.js';
import { DemoService } from './demo.service.js';

/** Mounted only outside production: in production these routes do not exist (404). */
@Controller('auth')
export class DemoController {
  constructor(private readonly demo: DemoService) {}

  @Post('demo-login')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Demo sign-in (not in production)',
    description: "Finds or creates `<role>@<orgSlug or 'platform'>.demo.invalid`; `client` and `org_admin` need the slug of an existing org.",
    tags: ['auth'],
    body: DemoLoginSchema,
    response: DemoLoginResponseSchema,
    status: 200,
    errors: [404],
  })
  login(@ValidBody() body: z.infer<typeof DemoLoginSchema>) {
    return this.demo.demoLogin(body.role, body.orgSlug);
  }

  @Get('demo-accounts')
  @Public()
  @Endpoint({ summary: 'The seeded demo accounts shown on the login page (not in production)', tags: ['auth'], response: DemoAccountsSchema })
  accounts() {
    return { accounts: this.demo.accounts() };
  }
}
