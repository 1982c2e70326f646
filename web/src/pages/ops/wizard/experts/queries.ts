import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from '../../../../layout/toast';
import { amApi, amKeys } from '../../../../ops/am.api';

export function useExperts() {
  return useQuery({ queryKey: amKeys.experts, queryFn: ({ signal }) => amApi.experts(signal), staleTime: 60_000 });
}

export function useGrants(orgId: string) {
  return useQuery({ queryKey: amKeys.grants(orgId), queryFn: ({ signal }) => amApi.grants(orgId, signal) });
}

export function useCoverage(orgId: string) {
  return useQuery({ queryKey: amKeys.coverage(orgId), queryFn: ({ signal }) => amApi.coverage(orgId, signal) });
}

/** After a grant changes: the grants, the coverage and the gate's expertMapped indicator. */
function useRefreshCoverage(orgId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: amKeys.org(orgId) });
}

export function useAddGrant(orgId: string) {
  const refresh = useRefreshCoverage(orgId);
  return useMutation({
    mutationFn: (body: Parameters<typeof amApi.addGrant>[1]) => amApi.addGrant(orgId, body),
    onSuccess: async () => {
      toast.success('Coverage granted.');
      await refresh();
    },
  });
}

export function useRemoveGrant(orgId: string) {
  const refresh = useRefreshCoverage(orgId);
  return useMutation({
    mutationFn: (grantId: string) => amApi.removeGrant(orgId, grantId),
    onSuccess: async () => {
      toast.success('Coverage removed.');
      await refresh();
    },
  });
}
