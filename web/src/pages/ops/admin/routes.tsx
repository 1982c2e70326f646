import type { RouteObject } from 'react-router';
import { page } from '../../../app/lazy-page';
import { Page } from '../../../layout/Page';

/** The internal administration pages of spec 4.1 (SuperAdmin): users, audit, impersonation, the Specialist catalog; and the staff profile with two-factor sign-in. */
export const opsAdminRoutes: RouteObject[] = [
  {
    path: 'users',
    ...page(
      () => import('./users/UsersPage'),
      (m) => m.UsersPage,
    ),
  },
  {
    path: 'users/:id',
    ...page(
      () => import('./users/UserDetailPage'),
      (m) => m.UserDetailPage,
    ),
  },
  {
    path: 'audit',
    ...page(
      () => import('./audit/AuditPage'),
      (m) => m.AuditPage,
    ),
  },
  {
    path: 'impersonation',
    ...page(
      () => import('./impersonation/ImpersonationPage'),
      (m) => m.ImpersonationPage,
    ),
  },
  {
    path: 'specialists',
    ...page(
      () => import('../specialists/SpecialistsPage'),
      (m) => m.SpecialistsPage,
    ),
  },
  {
    path: 'profile',
    ...page(
      () => import('../../client/settings/profile/ProfilePage'),
      ({ ProfilePage }) =>
        function OpsProfilePage() {
          return (
            <Page title="Profile">
              <ProfilePage />
            </Page>
          );
        },
    ),
  },
];
