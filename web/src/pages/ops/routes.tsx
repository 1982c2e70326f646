import type { RouteObject } from 'react-router';
import { page } from '../../app/lazy-page';

/** The pages of spec 4.1 under /ops/clients (the AM wizard, org overview and OSA detail), and the staff's notifications. */
export const opsClientRoutes: RouteObject[] = [
  {
    path: 'clients',
    ...page(
      () => import('./clients/ClientsPage'),
      (m) => m.ClientsPage,
    ),
  },
  {
    path: 'clients/new',
    ...page(
      () => import('./wizard/company/CompanyInfoPage'),
      (m) => m.CompanyInfoPage,
    ),
  },
  {
    path: 'clients/:id',
    ...page(
      () => import('./org/OrgOverviewPage'),
      (m) => m.OrgOverviewPage,
    ),
  },
  {
    path: 'clients/:id/setup/step-1',
    ...page(
      () => import('./wizard/company/CompanyInfoPage'),
      (m) => m.CompanyInfoPage,
    ),
  },
  {
    path: 'clients/:id/setup/step-2',
    ...page(
      () => import('./wizard/specialists/SpecialistAssignmentPage'),
      (m) => m.SpecialistAssignmentPage,
    ),
  },
  {
    path: 'clients/:id/setup/step-3',
    ...page(
      () => import('./wizard/experts/ExpertAssignmentPage'),
      (m) => m.ExpertAssignmentPage,
    ),
  },
  {
    path: 'clients/:id/setup/step-4',
    ...page(
      () => import('./wizard/invite/ClientInvitePage'),
      (m) => m.ClientInvitePage,
    ),
  },
  {
    path: 'clients/:id/specialists/:assignmentId',
    ...page(
      () => import('./org/AssignmentDetailPage'),
      (m) => m.AssignmentDetailPage,
    ),
  },
  {
    path: 'notifications',
    ...page(
      () => import('./notifications/OpsNotificationsPage'),
      (m) => m.OpsNotificationsPage,
    ),
  },
];
