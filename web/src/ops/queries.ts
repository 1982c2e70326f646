import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { amApi, amKeys } from './am.api';

/** Shared reads of the AM pages; each page composes the ones it needs. */

export function useOrg(orgId: string | undefined) {
  return useQuery({
    queryKey: amKeys.orgRecord(orgId ?? ''),
    queryFn: ({ signal }) => amApi.getOrg(orgId!, signal),
    enabled: Boolean(orgId),
  });
}

export function useAssignments(orgId: string) {
  return useQuery({ queryKey: amKeys.assignments(orgId), queryFn: ({ signal }) => amApi.assignments(orgId, signal) });
}

export function useSpecialistPool(enabled = true) {
  return useQuery({ queryKey: amKeys.specialists, queryFn: ({ signal }) => amApi.specialists(signal), staleTime: 60_000, enabled });
}

/** The configured workspace domain (it changes only with the deployment). */
export function useWorkspaceDomain() {
  return useQuery({ queryKey: amKeys.workspace, queryFn: ({ signal }) => amApi.workspace(signal), staleTime: Infinity, select: (w) => w.workspaceDomain });
}

export function useAmProfile() {
  return useQuery({ queryKey: amKeys.profile, queryFn: ({ signal }) => amApi.profile(signal) });
}

/** Forgets every cached read of one org (and the clients list, whose rows show it). */
export function useInvalidateOrg(): (orgId: string) => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(
    async (orgId: string) => {
      await Promise.all([queryClient.invalidateQueries({ queryKey: amKeys.org(orgId) }), queryClient.invalidateQueries({ queryKey: amKeys.orgLists })]);
    },
    [queryClient],
  );
}
