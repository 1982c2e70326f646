import type { DemoAccount, DemoAccounts, LoginRequest, MeResponse, RecoveryCodesResponse, TokenResponse, TotpSetupResponse, TwoFactorStatus } from '@contracts';
import { apiFetch } from '../api/client';

export type { DemoAccount };

export const authApi = {
  login: (body: LoginRequest) => apiFetch<TokenResponse>('/auth/login', { method: 'POST', body }),
  requestOtp: (body: { email: string }) => apiFetch<void>('/auth/request-otp', { method: 'POST', body }),
  verifyOtp: (body: { email: string; code: string; totpCode?: string; recoveryCode?: string }) => apiFetch<TokenResponse>('/auth/verify-otp', { method: 'POST', body }),
  /** Ends the presented session on the server (with `all`, every session of the caller). */
  logout: (all = false) => apiFetch<void>('/auth/logout', { method: 'POST', body: all ? { all: true } : {} }),
  me: (signal?: AbortSignal) => apiFetch<MeResponse>('/auth/me', { signal }),
  updateMe: (body: { name: string }) => apiFetch<MeResponse>('/auth/me', { method: 'PATCH', body }),
  /** Every other session ends; the answer carries this browser's new token. */
  changePassword: (body: { currentPassword: string; password: string }) => apiFetch<TokenResponse>('/auth/me/password', { method: 'POST', body }),
  /** Redeems the code of an administrator-initiated reset. */
  resetPassword: (body: { email: string; code: string; password: string }) => apiFetch<void>('/auth/reset-password', { method: 'POST', body }),
  /** Answers 404 in production, where there are no demo accounts. */
  demoAccounts: (signal?: AbortSignal) => apiFetch<DemoAccounts>('/auth/demo-accounts', { signal }),
};

/** The caller's two-factor sign-in (spec 4.3). */
export type SecondFactorInput = { totpCode: string } | { recoveryCode: string };
export const twoFactorApi = {
  status: (signal?: AbortSignal) => apiFetch<TwoFactorStatus>('/auth/2fa', { signal }),
  setup: () => apiFetch<TotpSetupResponse>('/auth/2fa/setup', { method: 'POST' }),
  verify: (code: string) => apiFetch<void>('/auth/2fa/verify', { method: 'POST', body: { code } }),
  disable: (factor: SecondFactorInput) => apiFetch<void>('/auth/2fa/disable', { method: 'POST', body: factor }),
  renewRecoveryCodes: (factor: SecondFactorInput) => apiFetch<RecoveryCodesResponse>('/auth/2fa/recovery-codes', { method: 'POST', body: factor }),
};
