import { Controller, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  BootstrapSchema,
  LoginRequestSchema,
  MeResponseSchema,
  RequestOtpSchema,
  TokenResponseSchema,
  VerifyOtpSchema,
} from '../../contracts/auth.js';
import { CurrentPrincipal, Public } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody } from '../../platform/http/endpoint.js';
import { AuthService } from './auth.service.js';

@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('auth/login')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Sign in with email and password (and a TOTP code when two-factor is on)',
    description: 'A user with two-factor sign-in and no `totpCode` gets 401 `totp_required`.',
    tags: ['auth'],
    body: LoginRequestSchema,
    response: TokenResponseSchema,
    status: 200,
  })
  login(@ValidBody() body: z.infer<typeof LoginRequestSchema>) {
    return this.auth.login(body);
  }

  @Post('auth/request-otp')
  @Public()
  @HttpCode(204)
  @Endpoint({ summary: 'Mail a 6-digit sign-in code (always 204)', tags: ['auth'], body: RequestOtpSchema, status: 204 })
  async requestOtp(@ValidBody() body: z.infer<typeof RequestOtpSchema>) {
    await this.auth.requestOtp(body.email);
  }

  @Post('auth/verify-otp')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Sign in with an emailed code (10 minutes, 5 attempts, single use)',
    tags: ['auth'],
    body: VerifyOtpSchema,
    response: TokenResponseSchema,
    status: 200,
  })
  verifyOtp(@ValidBody() body: z.infer<typeof VerifyOtpSchema>) {
    return this.auth.verifyOtp(body.email, body.code);
  }

  @Get('auth/me')
  @Endpoint({ summary: 'The signed-in user, memberships and landing page (spec 5.4)', tags: ['auth'], response: MeResponseSchema })
  me(@CurrentPrincipal() principal: Principal) {
    return this.auth.me(principal);
  }

  @Post('bootstrap')
  @Public()
  @Endpoint({
    summary: 'Create the first superadmin (needs X-Bootstrap-Token; 409 once a superadmin exists)',
    tags: ['auth'],
    body: BootstrapSchema,
    response: TokenResponseSchema,
    status: 201,
    errors: [403, 409],
    headers: { 'x-bootstrap-token': 'The BOOTSTRAP_TOKEN of the deployment' },
  })
  bootstrap(@Headers('x-bootstrap-token') token: string | undefined, @ValidBody() body: z.infer<typeof BootstrapSchema>) {
    return this.auth.bootstrap(token, body);
  }
}
