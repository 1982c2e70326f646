import type { TrialInfo } from '@contracts';
import { apiFetch } from '../api/client';

export type { TrialInfo };

/** The client portal's reads of its own org (spec 4.6). */
export const clientApi = {
  trialInfo: (orgId: string | undefined, signal?: AbortSignal) => apiFetch<TrialInfo>('/client/trial-info', { query: { orgId }, signal }),
};

export const clientKeys = {
  trialInfo: (orgId: string | undefined) => ['client', 'trial-info', orgId ?? null] as const,
};
