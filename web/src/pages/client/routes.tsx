import type { RouteObject } from 'react-router';
import { page } from '../../app/lazy-page';
import { clientSettingsRoute } from './settings/routes';

/** The client's pages under `/client` (spec 4.1): the chat, the inbox and the settings. */
export const clientRoutes: RouteObject[] = [
  {
    path: 'chat',
    ...page(
      () => import('./ChatPage'),
      (m) => m.ChatPage,
    ),
  },
  {
    path: 'inbox',
    ...page(
      () => import('./InboxPage'),
      (m) => m.InboxPage,
    ),
  },
  clientSettingsRoute,
];
