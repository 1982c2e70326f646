import { Alert, Badge, Button, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import type { NotificationDto } from '@contracts/notifications';
import type { ReactNode } from 'react';
import { isUnread, useMarkRead, useNotifications } from './notifications';

function NotificationItem({ notification }: { notification: NotificationDto }) {
  const markRead = useMarkRead();
  const unread = isUnread(notification);
  const heading = notification.title || notification.type;

  return (
    <Paper
      component="article"
      withBorder
      p="sm"
      aria-label={heading}
      data-testid="notification-item"
      data-unread={unread}
      bg={unread ? 'var(--mantine-primary-color-light)' : undefined}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={2} miw={0}>
          <Group gap="xs" wrap="nowrap">
            {unread && (
              <Badge size="xs" variant="filled" data-testid="unread-marker">
                Unread
              </Badge>
            )}
            <Text size="sm" fw={unread ? 700 : 500} style={{ wordBreak: 'break-word' }}>
              {heading}
            </Text>
          </Group>
          {notification.message && (
            <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
              {notification.message}
            </Text>
          )}
          {markRead.error && (
            <Text size="xs" c="red" role="alert">
              {markRead.error.message}
            </Text>
          )}
        </Stack>
        {unread && (
          <Button
            size="compact-xs"
            variant="light"
            loading={markRead.isPending}
            onClick={() => markRead.mutate(notification.id)}
          >
            Mark read
          </Button>
        )}
      </Group>
    </Paper>
  );
}

export function NotificationList({ items, empty }: { items: readonly NotificationDto[]; empty: string }) {
  if (items.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="notifications-empty">
        {empty}
      </Text>
    );
  }
  return (
    <Stack gap="xs">
      {items.map((notification) => (
        <NotificationItem key={notification.id} notification={notification} />
      ))}
    </Stack>
  );
}

/** Renders `children(items)` once the list is loaded; a loader or an error before that. */
export function WithNotifications({ children }: { children: (items: NotificationDto[]) => ReactNode }) {
  const { query, items } = useNotifications();
  if (query.isPending) return <Loader size="sm" aria-label="Loading notifications" />;
  if (query.isError && !query.data) {
    return (
      <Alert color="red" role="alert" title="Could not load the notifications">
        {query.error.message}
      </Alert>
    );
  }
  return <>{children(items)}</>;
}
