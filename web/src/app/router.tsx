import type { PlatformRole } from '@contracts';
import { lazy, Suspense } from 'react';
import { createBrowserRouter, type PatchRoutesOnNavigationFunction, type RouteObject } from 'react-router';
import { tokenStore } from '../api/token';
import { CLIENT_ROLES, OPS_ROLES, WORKSPACE_ROLES } from '../auth/roles';
import { LandingRedirect, RequireRole, SessionLoading } from '../auth/SessionGate';
import { ErrorPage } from '../pages/ErrorPage';
import { LoginPage } from '../pages/login/LoginPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { page } from './lazy-page';
import { legacyRedirects } from './legacy-redirects';

/*
 * Code splitting: the sign-in page is in the first download; every other page comes with its own
 * chunk when it is first opened. A signed-in area's route table is patched in the first time a
 * path of the area is visited by someone signed in (react-router's route discovery); each of its
 * pages is then downloaded when its route is first matched (`page()`), so opening the client chat
 * does not download the settings, nor the ops clients list the billing charts.
 */

const AppLayout = lazy(() => import('../layout/AppLayout').then((module) => ({ default: module.AppLayout })));

interface Area {
  id: string;
  roles: readonly PlatformRole[];
  /** The area's pages (relative paths under `/<id>`), imported on the first visit. */
  routes: () => Promise<RouteObject[]>;
}

const AREAS: readonly Area[] = [
  {
    id: 'ops',
    roles: OPS_ROLES,
    routes: async () => {
      const [clients, channels, admin, billing] = await Promise.all([
        import('../pages/ops/routes'),
        import('../pages/ops/channels/routes'),
        import('../pages/ops/admin/routes'),
        import('../pages/ops/billing/routes'),
      ]);
      return [...clients.opsClientRoutes, ...channels.opsChannelRoutes, ...admin.opsAdminRoutes, ...billing.opsBillingRoutes];
    },
  },
  {
    id: 'workspace',
    roles: WORKSPACE_ROLES,
    routes: async () => (await import('../pages/workspace/routes')).workspaceRoutes,
  },
  {
    id: 'client',
    roles: CLIENT_ROLES,
    routes: async () => (await import('../pages/client/routes')).clientRoutes,
  },
];

/**
 * A signed-in area: its pages share the app shell and are open to `roles` only. Until its pages
 * are loaded it knows `/<id>` itself (the landing) and a not-found page for any other path.
 */
function areaRoute(area: Area): RouteObject {
  return {
    id: area.id,
    path: `/${area.id}`,
    element: (
      <RequireRole roles={area.roles}>
        <Suspense fallback={<SessionLoading />}>
          <AppLayout />
        </Suspense>
      </RequireRole>
    ),
    children: [
      { index: true, element: <LandingRedirect /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  };
}

const loadedAreas = new Set<string>();

/**
 * Adds an area's pages to the router the first time one of its paths is visited by someone signed
 * in (a signed-out visitor is sent to /login without downloading them).
 */
export const discoverAreaRoutes: PatchRoutesOnNavigationFunction = async ({ path, patch, signal }) => {
  const area = AREAS.find((candidate) => path === `/${candidate.id}` || path.startsWith(`/${candidate.id}/`));
  if (!area || loadedAreas.has(area.id) || tokenStore.get() === null) return;
  const routes = await area.routes();
  // An interrupted navigation's patch is dropped by the router: the next navigation patches them.
  if (signal.aborted || loadedAreas.has(area.id)) return;
  patch(area.id, routes);
  loadedAreas.add(area.id);
};

export const router = createBrowserRouter(
  [
    {
      errorElement: <ErrorPage />,
      children: [
        { path: '/', element: <LandingRedirect /> },
        { path: '/login', element: <LoginPage /> },
        {
          path: '/dev/mail',
          ...page(
            () => import('../pages/dev/DevMailPage'),
            (m) => m.DevMailPage,
          ),
        },
        {
          path: '/reset-password',
          ...page(
            () => import('../pages/reset-password/ResetPasswordPage'),
            (m) => m.ResetPasswordPage,
          ),
        },
        {
          path: '/onboarding/start',
          ...page(
            () => import('../pages/onboarding/OnboardingPage'),
            (m) => m.OnboardingPage,
          ),
        },
        // The preserved entry for OTP, password and profile (spec 4.1): the same flow.
        {
          path: '/accept-invite',
          ...page(
            () => import('../pages/onboarding/OnboardingPage'),
            (m) => m.OnboardingPage,
          ),
        },
        // The link of a member invitation mail: the signed-in invited user accepts it.
        {
          path: '/invitations/accept',
          ...page(
            () => import('../pages/invitations/AcceptInvitationPage'),
            (m) => m.AcceptInvitationPage,
          ),
        },
        ...AREAS.map(areaRoute),
        ...legacyRedirects,
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { patchRoutesOnNavigation: discoverAreaRoutes },
);
