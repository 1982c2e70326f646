import { Alert, Button, Center, Group, Loader } from '@mantine/core';
import type { MeResponse, PlatformRole } from '@contracts';
import type { ReactNode } from 'react';
import { Navigate, useLocation, useNavigation } from 'react-router';
import { loginPathFor } from './next-path';
import { CurrentUserContext } from './current-user';
import { useSession, useSignOut } from './session';

export function SessionLoading() {
  return (
    <Center h="100vh">
      <Loader aria-label="Loading session" />
    </Center>
  );
}

function SessionError({ error, retry }: { error: Error; retry: () => void }) {
  const signOut = useSignOut();
  return (
    <Center h="100vh" p="md">
      <Alert color="red" title="Could not load your session" maw={480}>
        {error.message}
        <Group mt="md">
          <Button onClick={retry}>Try again</Button>
          <Button variant="default" onClick={() => void signOut()}>
            Sign out
          </Button>
        </Group>
      </Alert>
    </Center>
  );
}

/** Renders `children(user)` once the session is known; signed-out visitors go to /login, and come back after it. */
function WithSession({ children }: { children: (user: MeResponse) => ReactNode }) {
  const session = useSession();
  const location = useLocation();
  switch (session.status) {
    case 'signed-out':
      return <Navigate to={loginPathFor(location)} replace />;
    case 'loading':
      return <SessionLoading />;
    case 'error':
      return <SessionError error={session.error} retry={session.retry} />;
    case 'signed-in':
      return <>{children(session.user)}</>;
  }
}

/**
 * Pages of one role area; a user of another role is sent to their own landing. When the session
 * changes role while the app is already taking the user somewhere (stopping an impersonation goes
 * back to the impersonated user's page, whose area may still be downloading), that navigation is
 * let finish instead of being overridden: its destination's own guard then decides.
 */
export function RequireRole({ roles, children }: { roles: readonly PlatformRole[]; children: ReactNode }) {
  const navigating = useNavigation().state !== 'idle';
  return (
    <WithSession>
      {(user) => {
        if (roles.includes(user.platformRole)) return <CurrentUserContext.Provider value={user}>{children}</CurrentUserContext.Provider>;
        return navigating ? <SessionLoading /> : <Navigate to={user.landing} replace />;
      }}
    </WithSession>
  );
}

/** `/`: the landing of the signed-in user, else /login. */
export function LandingRedirect() {
  return <WithSession>{(user) => <Navigate to={user.landing} replace />}</WithSession>;
}
