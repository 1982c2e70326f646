import { Controller, Get, Headers, HttpCode, Ip, Patch, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  BootstrapSchema,
  ChangePasswordSchema,
  LoginRequestSchema,
  LogoutSchema,
  MeResponseSchema,
  RequestOtpSchema,
  ResetPasswordSchema,
  TokenResponseSchema,
  UpdateMeSchema,
  VerifyOtpSchema,
} from '../../contracts/auth.js';
import { CurrentPrincipal, OpenWhileSuspended, Public } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody } from '../../platform/http/endpoint.js';
import { AuthService } from './auth.service.js';
import { LoginCodeService } from './login-code.service.js';
import { PasswordResetService } from './password-reset.service.js';
import { SessionsService } from './sessions.service.js';

// Signing in and the session stay open for users of a suspended org (spec 3.6).
@Controller()
@OpenWhileSuspended()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly passwordReset: PasswordResetService,
    private readonly sessions: SessionsService,
    private readonly loginCodes: LoginCodeService,
  ) {}

  @Post('auth/login')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Sign in with email and password (and a TOTP code when two-factor is on)',
    description:
      'A user with two-factor sign-in and neither `totpCode` nor `recoveryCode` gets 401 `totp_required`; a recovery code works once. ' +
      '10 wrong passwords or second factors for an account from one client address in 15 minutes answer 429 from that address only.',
    tags: ['auth'],
    body: LoginRequestSchema,
    response: TokenResponseSchema,
    status: 200,
  })
  login(@ValidBody() body: z.infer<typeof LoginRequestSchema>, @Ip() ip: string) {
    return this.auth.login(body, ip);
  }

  @Post('auth/request-otp')
  @Public()
  @HttpCode(204)
  @Endpoint({
    summary: 'Mail a 6-digit sign-in code (always 204)',
    description: 'The same answer, after the same work, for every address: the code is mailed from a queued job, to an active user only.',
    tags: ['auth'],
    body: RequestOtpSchema,
    response: null,
    status: 204,
  })
  async requestOtp(@ValidBody() body: z.infer<typeof RequestOtpSchema>) {
    await this.loginCodes.request(body.email);
  }

  @Post('auth/verify-otp')
  @Public()
  @HttpCode(200)
  @Endpoint({
    summary: 'Sign in with an emailed code (10 minutes, 5 attempts, single use)',
    description:
      'Every failure answers the same 401 `unauthorized`. With two-factor sign-in on, `totpCode` or `recoveryCode` comes with the code ' +
      '(a right code without it answers 401 `totp_required`, and the code stays usable).',
    tags: ['auth'],
    body: VerifyOtpSchema,
    response: TokenResponseSchema,
    status: 200,
  })
  verifyOtp(@ValidBody() body: z.infer<typeof VerifyOtpSchema>, @Ip() ip: string) {
    return this.auth.verifyOtp(body.email, body.code, body, ip);
  }

  @Post('auth/reset-password')
  @Public()
  @HttpCode(204)
  @Endpoint({
    summary: 'Set a new password with the 6-digit code of an administrator-initiated reset',
    description: 'The code is single use and expires after 30 minutes; every earlier session of the user ends.',
    tags: ['auth'],
    body: ResetPasswordSchema,
    response: null,
    status: 204,
  })
  async resetPassword(@ValidBody() body: z.infer<typeof ResetPasswordSchema>) {
    await this.passwordReset.redeem(body);
  }

  @Post('auth/logout')
  @HttpCode(204)
  @Endpoint({
    summary: 'Sign out: end the presented session, or with `all: true` every session of the caller',
    description: 'The ended tokens answer 401 afterwards, on REST and on sockets (open sockets of those sessions are disconnected).',
    tags: ['auth'],
    body: LogoutSchema,
    response: null,
    status: 204,
  })
  async logout(@CurrentPrincipal() principal: Principal, @ValidBody() body: z.infer<typeof LogoutSchema>) {
    await this.sessions.logout(principal, body.all === true);
  }

  @Get('auth/me')
  @Endpoint({ summary: 'The signed-in user, memberships and landing page (spec 5.4)', tags: ['auth'], response: MeResponseSchema })
  me(@CurrentPrincipal() principal: Principal) {
    return this.auth.me(principal);
  }

  @Patch('auth/me')
  @Endpoint({ summary: "Edit the caller's own name (an empty name clears it)", tags: ['auth'], body: UpdateMeSchema, response: MeResponseSchema })
  updateMe(@CurrentPrincipal() principal: Principal, @ValidBody() body: z.infer<typeof UpdateMeSchema>) {
    return this.auth.updateMe(principal, body.name);
  }

  @Post('auth/me/password')
  @HttpCode(200)
  @Endpoint({
    summary: "Change the caller's own password",
    description:
      'Needs the current password (a wrong one answers 400 on `currentPassword` and counts as a failed sign-in). Every earlier session ends; ' +
      'the answer carries the token of a new one. Refused while impersonating.',
    tags: ['auth'],
    body: ChangePasswordSchema,
    response: TokenResponseSchema,
    status: 200,
    errors: [403, 429],
  })
  changePassword(@CurrentPrincipal() principal: Principal, @ValidBody() body: z.infer<typeof ChangePasswordSchema>, @Ip() ip: string) {
    return this.auth.changePassword(principal, body, ip);
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
