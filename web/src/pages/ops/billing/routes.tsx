import type { RouteObject } from 'react-router';
import { page } from '../../../app/lazy-page';

/** `/ops/billing` (and `?org=<id>`) and `/ops/analytics` (spec 4.1, 8.1). */
export const opsBillingRoutes: RouteObject[] = [
  {
    path: 'billing',
    ...page(
      () => import('./OpsBillingPage'),
      (m) => m.OpsBillingPage,
    ),
  },
  {
    path: 'analytics',
    ...page(
      () => import('../analytics/OpsAnalyticsPage'),
      (m) => m.OpsAnalyticsPage,
    ),
  },
];
