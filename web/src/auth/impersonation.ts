import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { adminApi } from '../admin/admin.api';
import { tokenStore } from '../api/token';
import { useSignIn } from './session';

/** Starts acting as another user: the own token is kept, the impersonation token takes over. */
export function useBeginImpersonation(): (impersonationToken: string) => Promise<void> {
  const signIn = useSignIn();
  const queryClient = useQueryClient();
  return useCallback(
    async (impersonationToken: string) => {
      const own = tokenStore.get();
      if (own) tokenStore.keepOwn(own);
      queryClient.clear();
      await signIn(impersonationToken);
    },
    [signIn, queryClient],
  );
}

/**
 * Ends the impersonation session on the server (its token stops working) and returns to the
 * SuperAdmin's own session, on the page of the user they impersonated.
 */
export function useStopImpersonation(): (targetUserId: string) => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(
    async (targetUserId: string) => {
      // Taken first: a refused (expired) impersonation token clears the store.
      const own = tokenStore.takeOwn();
      await adminApi.stopImpersonation().catch(() => undefined);
      queryClient.clear();
      if (own) {
        tokenStore.set(own);
        await navigate(`/ops/users/${targetUserId}`, { replace: true });
      } else {
        tokenStore.clear();
        await navigate('/login', { replace: true });
      }
    },
    [queryClient, navigate],
  );
}
