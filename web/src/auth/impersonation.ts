import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { adminApi } from '../admin/admin.api';
import { tokenStore } from '../api/token';
import { useSignIn } from './session';

/**
 * Starts acting as another user: the impersonation token replaces the SuperAdmin's own, which the
 * browser no longer holds (the server gives that session back when the impersonation stops).
 */
export function useBeginImpersonation(): (impersonationToken: string) => Promise<void> {
  const signIn = useSignIn();
  const queryClient = useQueryClient();
  return useCallback(
    async (impersonationToken: string) => {
      queryClient.clear();
      await signIn(impersonationToken);
    },
    [signIn, queryClient],
  );
}

/**
 * Ends the impersonation session on the server (its token stops working), which answers with the
 * SuperAdmin's own session, and returns to it on the page of the user they impersonated. Without
 * that session (it ended, or the SuperAdmin lost the role), the browser signs in again.
 */
export function useStopImpersonation(): (targetUserId: string) => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(
    async (targetUserId: string) => {
      // The server ends the impersonation session before it answers: what the page reloads meanwhile is refused.
      const handOver = tokenStore.handOver();
      const stopped = await adminApi.stopImpersonation().catch(() => undefined);
      queryClient.clear();
      if (stopped?.token) {
        tokenStore.set(stopped.token);
        handOver.done();
        await navigate(`/ops/users/${targetUserId}`, { replace: true });
      } else {
        handOver.done();
        tokenStore.clear();
        await navigate('/login', { replace: true });
      }
    },
    [queryClient, navigate],
  );
}
