import { Tabs } from '@mantine/core';
import { Outlet, useLocation, useNavigate, type RouteObject } from 'react-router';
import { Page } from '../../../layout/Page';

export const SETTINGS_BASE = '/client/settings';

/** One tab of the client settings: `/client/settings/<path>`, its page loaded by `lazy`. */
export interface SettingsSection {
  path: string;
  label: string;
  lazy?: RouteObject['lazy'];
}

/** `/client/settings/*`: the settings title, a tab per section, and the open section below. */
export function SettingsLayout({ sections }: { sections: readonly SettingsSection[] }) {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const current = sections.find((s) => pathname === `${SETTINGS_BASE}/${s.path}` || pathname.startsWith(`${SETTINGS_BASE}/${s.path}/`));

  return (
    <Page title="Settings">
      <Tabs value={current?.path ?? null} onChange={(path) => path && void navigate(`${SETTINGS_BASE}/${path}`)}>
        <Tabs.List aria-label="Settings sections">
          {sections.map((s) => (
            <Tabs.Tab key={s.path} value={s.path}>
              {s.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Outlet />
    </Page>
  );
}
