import { AppShell, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { Outlet } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { ImpersonationBanner } from '../auth/ImpersonationBanner';
import { roleLabel } from '../auth/roles';
import { useSignOut } from '../auth/session';
import { NotificationBell } from '../notifications/NotificationBell';
import { useNotificationsSocket } from '../notifications/useNotificationsSocket';
import { AreaNav } from './AreaNav';

export const PRODUCT_NAME = 'Client Organization Service';

/** The shell of every signed-in area: product name, notifications (kept live), who is signed in, and Sign out. */
export function AppLayout() {
  const user = useCurrentUser();
  const signOut = useSignOut();
  useNotificationsSocket();

  return (
    <AppShell header={{ height: 64 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="lg" wrap="nowrap">
            <Text component="span" fw={700} size="lg">
              {PRODUCT_NAME}
            </Text>
            <AreaNav />
          </Group>
          <Group gap="md" wrap="nowrap">
            <NotificationBell />
            <Stack gap={0} align="flex-end" data-testid="current-user" aria-label="Signed-in user">
              <Text size="sm" fw={500}>
                {user.name}
              </Text>
              <Text size="xs" c="dimmed">
                {user.email}
              </Text>
            </Stack>
            <Badge variant="light" data-testid="current-user-role">
              {roleLabel(user.platformRole)}
            </Badge>
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <ImpersonationBanner />
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
