import type { RouteObject } from 'react-router';
import { ProfilePage } from '../../client/settings/profile/ProfilePage';
import { Page } from '../../../layout/Page';
import { SpecialistsPage } from '../specialists/SpecialistsPage';
import { AuditPage } from './audit/AuditPage';
import { ImpersonationPage } from './impersonation/ImpersonationPage';
import { UserDetailPage } from './users/UserDetailPage';
import { UsersPage } from './users/UsersPage';

/** The internal administration pages of spec 4.1 (SuperAdmin): users, audit, impersonation, the Specialist catalog; and the staff profile with two-factor sign-in. */
export const opsAdminRoutes: RouteObject[] = [
  { path: 'users', element: <UsersPage /> },
  { path: 'users/:id', element: <UserDetailPage /> },
  { path: 'audit', element: <AuditPage /> },
  { path: 'impersonation', element: <ImpersonationPage /> },
  { path: 'specialists', element: <SpecialistsPage /> },
  {
    path: 'profile',
    element: (
      <Page title="Profile">
        <ProfilePage />
      </Page>
    ),
  },
];
