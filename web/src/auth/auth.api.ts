import type { LoginRequest, MeResponse, TokenResponse } from '@contracts';
import { apiFetch } from '../api/client';

export interface DemoAccount {
  email: string;
  password: string;
  role: string;
}

export const authApi = {
  login: (body: LoginRequest) => apiFetch<TokenResponse>('/auth/login', { method: 'POST', body }),
  requestOtp: (body: { email: string }) => apiFetch<void>('/auth/request-otp', { method: 'POST', body }),
  verifyOtp: (body: { email: string; code: string }) =>
    apiFetch<TokenResponse>('/auth/verify-otp', { method: 'POST', body }),
  me: (signal?: AbortSignal) => apiFetch<MeResponse>('/auth/me', { signal }),
  /** Answers 404 in production, where there are no demo accounts. */
  demoAccounts: (signal?: AbortSignal) => apiFetch<{ accounts: DemoAccount[] }>('/auth/demo-accounts', { signal }),
};
