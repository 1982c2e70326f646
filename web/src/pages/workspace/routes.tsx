import type { RouteObject } from 'react-router';
import { QueuePage } from './QueuePage';
import { QueueThreadPage } from './QueueThreadPage';
import { WorkspaceNotificationsPage } from './WorkspaceNotificationsPage';
import { WorkspaceProfilePage } from './WorkspaceProfilePage';

/** The Expert's pages under `/workspace` (spec 4.1): the attention list, a thread, the profile, the notifications. */
export const workspaceRoutes: RouteObject[] = [
  { path: 'queue', element: <QueuePage /> },
  { path: 'queue/:conversationId', element: <QueueThreadPage /> },
  { path: 'profile', element: <WorkspaceProfilePage /> },
  { path: 'notifications', element: <WorkspaceNotificationsPage /> },
];
