import { Anchor, AppShell, Burger, Group, ScrollArea } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useEffect } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { ImpersonationBanner } from '../auth/ImpersonationBanner';
import { NotificationBell } from '../notifications/NotificationBell';
import { useNotificationsSocket } from '../notifications/useNotificationsSocket';
import { ClientOrgMark } from '../orgs/ClientOrgMark';
import { AreaNav } from './AreaNav';
import { PRODUCT_NAME } from './product';
import { SignedInUser } from './SignedInUser';

export { PRODUCT_NAME };

const HEADER_HEIGHT = 56;
const NAVBAR_WIDTH = 240;
/** Below this width the navigation folds into the Burger menu (Mantine's `sm`, 48em). */
const NAV_BREAKPOINT = 'sm';
const FOLDED_QUERY = '(max-width: 47.99em)';

/**
 * The shell of every signed-in area: the header (product, the client's org, notifications kept
 * live) and the navigation (the user's pages, who is signed in, Sign out), which on a phone folds
 * into a menu opened by the Burger.
 */
export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const folded = useMediaQuery(FOLDED_QUERY, false, { getInitialValueInEffect: false });
  const { pathname } = useLocation();
  useNotificationsSocket();
  // A page opened from the menu closes it.
  useEffect(() => close(), [pathname, close]);

  return (
    <AppShell header={{ height: HEADER_HEIGHT }} navbar={{ width: NAVBAR_WIDTH, breakpoint: NAV_BREAKPOINT, collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger opened={opened} onClick={toggle} hiddenFrom={NAV_BREAKPOINT} size="sm" aria-label="Menu" aria-controls="app-navigation" aria-expanded={opened} />
            <Anchor component={Link} to="/" c="var(--mantine-color-text)" fw={700} size="lg" underline="never" truncate>
              {PRODUCT_NAME}
            </Anchor>
            <ClientOrgMark />
          </Group>
          <NotificationBell />
        </Group>
      </AppShell.Header>
      {/* Folded away on a phone, its links are out of reach (inert) until the menu opens. */}
      <AppShell.Navbar id="app-navigation" aria-label="Areas" p="sm" inert={folded && !opened}>
        <AppShell.Section grow component={ScrollArea} mx="-sm" px="sm">
          <AreaNav onNavigate={close} />
        </AppShell.Section>
        <AppShell.Section pt="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          <SignedInUser />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main miw={0}>
        <ImpersonationBanner />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
