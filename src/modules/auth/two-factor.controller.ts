import { Controller, Get, HttpCode, Ip, Post } from '@nestjs/common';
import { z } from 'zod';
import { RecoveryCodesResponseSchema, SecondFactorSchema, TotpCodeBodySchema, TotpSetupResponseSchema, TwoFactorStatusSchema } from '../../contracts/auth.js';
import { CurrentPrincipal, OpenWhileSuspended } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidBody } from '../../platform/http/endpoint.js';
import { TwoFactorService } from './two-factor.service.js';

/** Two-factor sign-in of the signed-in user (spec 4.3): TOTP with a QR code, and recovery codes. */
// The user's own account, like signing in: open while their org is suspended (spec 3.6).
@Controller('auth/2fa')
@OpenWhileSuspended()
export class TwoFactorController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Get()
  @Endpoint({ summary: 'Whether two-factor sign-in is on, and how many recovery codes are left', tags: ['auth'], response: TwoFactorStatusSchema })
  async status(@CurrentPrincipal() p: Principal) {
    return { enabled: p.record.totpEnabled, recoveryCodesLeft: p.record.totpEnabled ? await this.twoFactor.unusedRecoveryCodes(p.userId) : 0 };
  }

  @Post('setup')
  @HttpCode(200)
  @Endpoint({
    summary: 'Start two-factor setup: a new secret, its otpauth URL and QR code, and 10 recovery codes (shown once)',
    description: 'Nothing changes at sign-in until `POST /auth/2fa/verify` accepts a code. 409 while two-factor sign-in is on.',
    tags: ['auth'],
    response: TotpSetupResponseSchema,
    status: 200,
    errors: [409],
  })
  setup(@CurrentPrincipal() p: Principal) {
    return this.twoFactor.setup(p);
  }

  @Post('verify')
  @HttpCode(204)
  @Endpoint({
    summary: 'Turn two-factor sign-in on with a code from the authenticator',
    description: 'From then on `POST /auth/login` needs `totpCode` (or one `recoveryCode`). A wrong code answers 400; after 5 wrong codes in 15 minutes, 429.',
    tags: ['auth'],
    body: TotpCodeBodySchema,
    response: null,
    status: 204,
    errors: [409],
  })
  async verify(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof TotpCodeBodySchema>, @Ip() ip: string) {
    await this.twoFactor.enable(p, body.code, ip);
  }

  @Post('disable')
  @HttpCode(204)
  @Endpoint({
    summary: 'Turn two-factor sign-in off (needs a current code or a recovery code)',
    description: 'A wrong code answers 400; after 5 wrong codes in 15 minutes, 429.',
    tags: ['auth'],
    body: SecondFactorSchema,
    response: null,
    status: 204,
    errors: [409],
  })
  async disable(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof SecondFactorSchema>, @Ip() ip: string) {
    await this.twoFactor.disable(p, body, ip);
  }

  @Post('recovery-codes')
  @HttpCode(200)
  @Endpoint({
    summary: 'Replace the recovery codes (needs a current code or a recovery code); the new ones are shown once',
    description: 'A wrong code answers 400; after 5 wrong codes in 15 minutes, 429.',
    tags: ['auth'],
    body: SecondFactorSchema,
    response: RecoveryCodesResponseSchema,
    status: 200,
    errors: [409],
  })
  async renew(@CurrentPrincipal() p: Principal, @ValidBody() body: z.infer<typeof SecondFactorSchema>, @Ip() ip: string) {
    return { recoveryCodes: await this.twoFactor.renewRecoveryCodes(p, body, ip) };
  }
}
