import { Navigate, type RouteObject } from 'react-router';
import { ChannelsSettingsPage } from './channels/ChannelsSettingsPage';
import { SettingsLayout, type SettingsSection } from './SettingsLayout';

/** The sections of the client settings (spec 4.1), in tab order; add a section here. */
const SECTIONS: readonly SettingsSection[] = [{ path: 'channels', label: 'Channels', element: <ChannelsSettingsPage /> }];

/** `/client/settings` and its sections, under the client area; the bare path opens the first tab. */
export const clientSettingsRoute: RouteObject = {
  path: 'settings',
  element: <SettingsLayout sections={SECTIONS} />,
  children: [{ index: true, element: <Navigate to={SECTIONS[0]!.path} replace /> }, ...SECTIONS.map((s) => ({ path: s.path, element: s.element }))],
};
