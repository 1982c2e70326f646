import { apiFetch } from '../api/client';
import type { OrgStatus, TrialMode } from '../ops/types';

/** `GET /client/trial-info`: what the trial banner shows (the server keeps its schema). */
export interface TrialInfo {
  orgId: string;
  status: OrgStatus;
  trialMode: TrialMode;
  trialStartedAt: string | null;
  trialEndDate: string | null;
  daysLeft: number | null;
  /** 7 days or less left (the org is, or is about to be, `trial_ending`). */
  ending: boolean;
  showBanner: boolean;
}

/** The client portal's reads of its own org (spec 4.6). */
export const clientApi = {
  trialInfo: (orgId: string | undefined, signal?: AbortSignal) => apiFetch<TrialInfo>('/client/trial-info', { query: { orgId }, signal }),
};

export const clientKeys = {
  trialInfo: (orgId: string | undefined) => ['client', 'trial-info', orgId ?? null] as const,
};
