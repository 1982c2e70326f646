import type { MeResponse } from '@contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ApiError } from '../api/client';
import { tokenStore } from '../api/token';
import { authApi } from './auth.api';
import { nextPathOf } from './next-path';

export type Session = { status: 'signed-out' } | { status: 'loading' } | { status: 'error'; error: Error; retry: () => void } | { status: 'signed-in'; user: MeResponse };

// The token is part of the key, so a new sign-in never reads the previous user's answer.
const meQueryKey = (token: string | null) => ['auth', 'me', token] as const;

export function useToken(): string | null {
  return useSyncExternalStore(tokenStore.subscribe, tokenStore.get);
}

export function useSession(): Session {
  const token = useToken();
  const me = useQuery({
    queryKey: meQueryKey(token),
    queryFn: ({ signal }) => authApi.me(signal),
    enabled: token !== null,
    staleTime: 60_000,
  });

  if (token === null) return { status: 'signed-out' };
  if (me.data) return { status: 'signed-in', user: me.data };
  if (me.error) {
    if (me.error instanceof ApiError && me.error.statusCode === 401) return { status: 'signed-out' };
    return { status: 'error', error: me.error, retry: () => void me.refetch() };
  }
  return { status: 'loading' };
}

/**
 * Stores a freshly issued token, loads `/auth/me` and goes to the page the sign-in was asked for
 * (`/login?next=`, a path of this site only), else to the user's landing page.
 */
export function useSignIn(): (token: string) => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { search } = useLocation();
  return useCallback(
    async (token: string) => {
      tokenStore.set(token);
      const user = await queryClient.fetchQuery({
        queryKey: meQueryKey(token),
        queryFn: ({ signal }) => authApi.me(signal),
      });
      await navigate(nextPathOf(search) ?? user.landing, { replace: true });
    },
    [queryClient, navigate, search],
  );
}

/**
 * Ends the session on the server first (its token stops working everywhere, sockets included),
 * then forgets it here; an unreachable server does not keep the user signed in on this browser.
 */
export function useSignOut(): () => Promise<void> {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(async () => {
    if (tokenStore.get() !== null) await authApi.logout().catch(() => undefined);
    tokenStore.clear();
    queryClient.clear();
    await navigate('/login', { replace: true });
  }, [queryClient, navigate]);
}
