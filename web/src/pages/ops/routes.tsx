import type { RouteObject } from 'react-router';
import { ClientsPage } from './clients/ClientsPage';
import { OpsNotificationsPage } from './notifications/OpsNotificationsPage';
import { AssignmentDetailPage } from './org/AssignmentDetailPage';
import { OrgOverviewPage } from './org/OrgOverviewPage';
import { CompanyInfoPage } from './wizard/company/CompanyInfoPage';
import { ExpertAssignmentPage } from './wizard/experts/ExpertAssignmentPage';
import { ClientInvitePage } from './wizard/invite/ClientInvitePage';
import { SpecialistAssignmentPage } from './wizard/specialists/SpecialistAssignmentPage';

/** The pages of spec 4.1 under /ops/clients (the AM wizard, org overview and OSA detail), and the staff's notifications. */
export const opsClientRoutes: RouteObject[] = [
  { path: 'clients', element: <ClientsPage /> },
  { path: 'clients/new', element: <CompanyInfoPage /> },
  { path: 'clients/:id', element: <OrgOverviewPage /> },
  { path: 'clients/:id/setup/step-1', element: <CompanyInfoPage /> },
  { path: 'clients/:id/setup/step-2', element: <SpecialistAssignmentPage /> },
  { path: 'clients/:id/setup/step-3', element: <ExpertAssignmentPage /> },
  { path: 'clients/:id/setup/step-4', element: <ClientInvitePage /> },
  { path: 'clients/:id/specialists/:assignmentId', element: <AssignmentDetailPage /> },
  { path: 'notifications', element: <OpsNotificationsPage /> },
];
