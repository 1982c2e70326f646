import { Navigate, type RouteObject } from 'react-router';
import { BillingSettingsPage } from './billing/BillingSettingsPage';
import { PaymentMethodPage } from './billing/PaymentMethodPage';
import { ChannelsSettingsPage } from './channels/ChannelsSettingsPage';
import { ProfilePage } from './profile/ProfilePage';
import { SettingsLayout, type SettingsSection } from './SettingsLayout';
import { TeamPage } from './team/TeamPage';

/** The sections of the client settings (spec 4.1), in tab order; add a section here. */
const SECTIONS: readonly SettingsSection[] = [
  { path: 'channels', label: 'Channels', element: <ChannelsSettingsPage /> },
  { path: 'profile', label: 'Profile', element: <ProfilePage /> },
  { path: 'team', label: 'Team', element: <TeamPage /> },
  { path: 'billing', label: 'Billing', element: <BillingSettingsPage /> },
];
/** Pages inside a section (its tab stays selected). */
const SUBPAGES: readonly RouteObject[] = [{ path: 'billing/payment-method', element: <PaymentMethodPage /> }];

/** `/client/settings` and its sections, under the client area; the bare path opens the first tab. */
export const clientSettingsRoute: RouteObject = {
  path: 'settings',
  element: <SettingsLayout sections={SECTIONS} />,
  children: [{ index: true, element: <Navigate to={SECTIONS[0]!.path} replace /> }, ...SECTIONS.map((s) => ({ path: s.path, element: s.element })), ...SUBPAGES],
};
