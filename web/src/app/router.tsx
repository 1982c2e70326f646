import type { PlatformRole } from '@contracts';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { CLIENT_ROLES, OPS_ROLES, WORKSPACE_ROLES } from '../auth/roles';
import { LandingRedirect, RequireRole } from '../auth/SessionGate';
import { AppLayout } from '../layout/AppLayout';
import { ChatPage } from '../pages/client/ChatPage';
import { InboxPage } from '../pages/client/InboxPage';
import { clientSettingsRoute } from '../pages/client/settings/routes';
import { DevMailPage } from '../pages/dev/DevMailPage';
import { ErrorPage } from '../pages/ErrorPage';
import { AcceptInvitationPage } from '../pages/invitations/AcceptInvitationPage';
import { LoginPage } from '../pages/login/LoginPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { OnboardingPage } from '../pages/onboarding/OnboardingPage';
import { opsAdminRoutes } from '../pages/ops/admin/routes';
import { opsBillingRoutes } from '../pages/ops/billing/routes';
import { opsChannelRoutes } from '../pages/ops/channels/routes';
import { opsClientRoutes } from '../pages/ops/routes';
import { ResetPasswordPage } from '../pages/reset-password/ResetPasswordPage';
import { QueuePage } from '../pages/workspace/QueuePage';
import { QueueThreadPage } from '../pages/workspace/QueueThreadPage';
import { legacyRedirects } from './legacy-redirects';

/** A signed-in area: its pages share the app shell and are open to `roles` only. */
function area(path: string, roles: readonly PlatformRole[], children: RouteObject[]): RouteObject {
  return {
    path,
    element: (
      <RequireRole roles={roles}>
        <AppLayout />
      </RequireRole>
    ),
    children,
  };
}

export const router = createBrowserRouter([
  {
    errorElement: <ErrorPage />,
    children: [
      { path: '/', element: <LandingRedirect /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/dev/mail', element: <DevMailPage /> },
      { path: '/reset-password', element: <ResetPasswordPage /> },
      { path: '/onboarding/start', element: <OnboardingPage /> },
      // The preserved entry for OTP, password and profile (spec 4.1): the same flow.
      { path: '/accept-invite', element: <OnboardingPage /> },
      // The link of a member invitation mail: the signed-in invited user accepts it.
      { path: '/invitations/accept', element: <AcceptInvitationPage /> },
      area('/ops', OPS_ROLES, [...opsClientRoutes, ...opsChannelRoutes, ...opsAdminRoutes, ...opsBillingRoutes]),
      area('/workspace', WORKSPACE_ROLES, [
        { path: 'queue', element: <QueuePage /> },
        { path: 'queue/:conversationId', element: <QueueThreadPage /> },
      ]),
      area('/client', CLIENT_ROLES, [
        { path: 'chat', element: <ChatPage /> },
        { path: 'inbox', element: <InboxPage /> },
        clientSettingsRoute,
      ]),
      ...legacyRedirects,
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
