import { Navigate, type RouteObject } from 'react-router';
import { page } from '../../../app/lazy-page';
import { SettingsLayout, type SettingsSection } from './SettingsLayout';

/** The sections of the client settings (spec 4.1), in tab order; add a section here. Each page is downloaded when first opened. */
const SECTIONS: readonly SettingsSection[] = [
  {
    path: 'channels',
    label: 'Channels',
    ...page(
      () => import('./channels/ChannelsSettingsPage'),
      (m) => m.ChannelsSettingsPage,
    ),
  },
  {
    path: 'profile',
    label: 'Profile',
    ...page(
      () => import('./profile/ProfilePage'),
      (m) => m.ProfilePage,
    ),
  },
  {
    path: 'team',
    label: 'Team',
    ...page(
      () => import('./team/TeamPage'),
      (m) => m.TeamPage,
    ),
  },
  {
    path: 'billing',
    label: 'Billing',
    ...page(
      () => import('./billing/BillingSettingsPage'),
      (m) => m.BillingSettingsPage,
    ),
  },
];
/** Pages inside a section (its tab stays selected). */
const SUBPAGES: readonly RouteObject[] = [
  {
    path: 'billing/payment-method',
    ...page(
      () => import('./billing/PaymentMethodPage'),
      (m) => m.PaymentMethodPage,
    ),
  },
];

/** `/client/settings` and its sections, under the client area; the bare path opens the first tab. */
export const clientSettingsRoute: RouteObject = {
  path: 'settings',
  element: <SettingsLayout sections={SECTIONS} />,
  children: [{ index: true, element: <Navigate to={SECTIONS[0]!.path} replace /> }, ...SECTIONS.map((s) => ({ path: s.path, lazy: s.lazy })), ...SUBPAGES],
};
