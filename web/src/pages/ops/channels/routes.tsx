import { Navigate, type RouteObject } from 'react-router';
import { page } from '../../../app/lazy-page';

/** The channel pages under /ops: the quarantined ingress (`/ops/channels` opens it). */
export const opsChannelRoutes: RouteObject[] = [
  { path: 'channels', element: <Navigate to="/ops/channels/quarantine" replace /> },
  {
    path: 'channels/quarantine',
    ...page(
      () => import('./QuarantinePage'),
      (m) => m.QuarantinePage,
    ),
  },
];
