import type { RouteObject } from 'react-router';
import { OpsAnalyticsPage } from '../analytics/OpsAnalyticsPage';
import { OpsBillingPage } from './OpsBillingPage';

/** `/ops/billing` (and `?org=<id>`) and `/ops/analytics` (spec 4.1, 8.1). */
export const opsBillingRoutes: RouteObject[] = [
  { path: 'billing', element: <OpsBillingPage /> },
  { path: 'analytics', element: <OpsAnalyticsPage /> },
];
