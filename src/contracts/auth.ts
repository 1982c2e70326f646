import { z } from 'zod';
import { OrgRoleSchema, PlatformRoleSchema, UserStatusSchema } from './roles.js';

export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Invalid email address' }).max(254));
export const OtpCodeSchema = z.string().regex(/^\d{6}$/, 'Must be a 6-digit code');
export const PasswordSchema = z.string().min(8, 'Must be at least 8 characters').max(256);

export const TotpCodeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Must be a 6-digit code');
/** A two-factor recovery code: 10 letters or digits, shown as two groups of 5 (`ab3de-9xk2p`). */
export const RecoveryCodeSchema = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v) => v.replace(/[\s-]/g, ''))
  .pipe(z.string().regex(/^[a-z0-9]{10}$/, 'Must be a recovery code'));

/** The second factor of a sign-in once two-factor is on: a TOTP code or one recovery code. */
const SecondFactorFields = {
  totpCode: TotpCodeSchema.optional(),
  recoveryCode: RecoveryCodeSchema.optional(),
};

export const LoginRequestSchema = z.object({
  email: EmailSchema,
  password: z.string().min(1, 'Required').max(256),
  ...SecondFactorFields,
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const RequestOtpSchema = z.object({ email: EmailSchema });
export const VerifyOtpSchema = z.object({ email: EmailSchema, code: OtpCodeSchema, ...SecondFactorFields });

/** Redeems the code of an admin-initiated password reset (API-MAP.md "Auth"). */
export const ResetPasswordSchema = z.object({ email: EmailSchema, code: OtpCodeSchema, password: PasswordSchema });

/** `POST /auth/logout`: the presented session, or with `all` every session of the caller. */
export const LogoutSchema = z.object({ all: z.boolean().optional() }).strict();
export const UpdateMeSchema = z.object({ name: z.string().trim().max(200) }).strict();

/** The caller's own password change: the current password proves it is them. */
export const ChangePasswordSchema = z.object({ currentPassword: z.string().min(1, 'Required').max(256), password: PasswordSchema }).strict();
export type ChangePasswordInput = z.infer<typeof ChangePasswordSchema>;

/** Two-factor setup: the secret, its otpauth URL and QR code, and the recovery codes (shown once). */
export const TotpSetupResponseSchema = z.object({
  secret: z.string(),
  otpauthUrl: z.string(),
  qrCodeDataUrl: z.string(),
  recoveryCodes: z.array(z.string()),
});
export type TotpSetupResponse = z.infer<typeof TotpSetupResponseSchema>;
export const TotpCodeBodySchema = z.object({ code: TotpCodeSchema });
/** Turning two-factor off or renewing the recovery codes needs a current second factor. */
export const SecondFactorSchema = z
  .object(SecondFactorFields)
  .refine((v) => v.totpCode !== undefined || v.recoveryCode !== undefined, { message: 'Send totpCode or recoveryCode', path: ['totpCode'] });
export const RecoveryCodesResponseSchema = z.object({ recoveryCodes: z.array(z.string()) });

export const DEMO_ROLES = ['superadmin', 'account_manager', 'expert', 'ai_operator', 'client', 'org_admin'] as const;
export const DemoLoginSchema = z.object({
  role: z.enum(DEMO_ROLES),
  orgSlug: z.string().min(1).max(63).optional(),
});

export const BootstrapSchema = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  name: z.string().trim().min(1).max(200),
});

export const OrgMembershipSchema = z.object({
  orgId: z.uuid(),
  orgRole: OrgRoleSchema,
  orgSlug: z.string().optional(),
  orgName: z.string().optional(),
});
export type OrgMembership = z.infer<typeof OrgMembershipSchema>;

export const UserDtoSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  platformRole: PlatformRoleSchema,
  status: UserStatusSchema,
  totpEnabled: z.boolean(),
  orgMemberships: z.array(OrgMembershipSchema),
  createdAt: z.string(),
});
export type UserDto = z.infer<typeof UserDtoSchema>;

export const TokenResponseSchema = z.object({ token: z.string(), user: UserDtoSchema });
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

export const DemoLoginResponseSchema = z.object({ token: z.string() });

export const LandingSchema = z.enum(['/ops/clients', '/workspace/queue', '/client/chat']);
export const MeResponseSchema = UserDtoSchema.extend({
  landing: LandingSchema,
  impersonatorId: z.uuid().optional(),
});
export type MeResponse = z.infer<typeof MeResponseSchema>;

export const DevMailItemSchema = z.object({
  id: z.uuid(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  createdAt: z.string(),
  /** Set once a mail that carried a code or link had its body erased (sent, or kept 24 hours). */
  erasedAt: z.string().nullable(),
});
export type DevMailItem = z.infer<typeof DevMailItemSchema>;

/** Whether the caller's two-factor sign-in is on (`GET /auth/2fa`). */
export const TwoFactorStatusSchema = z.object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int() });
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusSchema>;

/** The seeded demo accounts the login page offers outside production (`GET /auth/demo-accounts`). */
export const DemoAccountSchema = z.object({ email: z.string(), password: z.string(), role: z.string() });
export type DemoAccount = z.infer<typeof DemoAccountSchema>;
export const DemoAccountsSchema = z.object({ accounts: z.array(DemoAccountSchema) });
export type DemoAccounts = z.infer<typeof DemoAccountsSchema>;
export type RecoveryCodesResponse = z.infer<typeof RecoveryCodesResponseSchema>;
