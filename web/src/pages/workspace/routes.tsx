import type { RouteObject } from 'react-router';
import { page } from '../../app/lazy-page';

/** The Expert's pages under `/workspace` (spec 4.1): the attention list, a thread, the profile, the notifications. */
export const workspaceRoutes: RouteObject[] = [
  {
    path: 'queue',
    ...page(
      () => import('./QueuePage'),
      (m) => m.QueuePage,
    ),
  },
  {
    path: 'queue/:conversationId',
    ...page(
      () => import('./QueueThreadPage'),
      (m) => m.QueueThreadPage,
    ),
  },
  {
    path: 'profile',
    ...page(
      () => import('./WorkspaceProfilePage'),
      (m) => m.WorkspaceProfilePage,
    ),
  },
  {
    path: 'notifications',
    ...page(
      () => import('./WorkspaceNotificationsPage'),
      (m) => m.WorkspaceNotificationsPage,
    ),
  },
];
