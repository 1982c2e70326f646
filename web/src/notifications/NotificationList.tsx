import { Alert, Anchor, Badge, Button, Group, Loader, Paper, Stack, Text, Tooltip } from '@mantine/core';
import type { NotificationDto } from '@contracts/notifications';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { toast } from '../layout/toast';
import { createdAtOf, exactTime, notificationLink, relativeTime } from './notification-view';
import { isUnread, useMarkAllRead, useMarkRead, useNotifications } from './notifications';

/** When it was made: relative, the exact time on hover (and for screen readers, in the title). */
function NotificationTime({ notification }: { notification: NotificationDto }) {
  const at = createdAtOf(notification);
  if (!at) return null;
  return (
    <Tooltip label={exactTime(at)} withArrow openDelay={200}>
      <Text component="time" dateTime={at.toISOString()} title={exactTime(at)} size="xs" c="dimmed" data-testid="notification-time" style={{ whiteSpace: 'nowrap' }}>
        {relativeTime(at)}
      </Text>
    </Tooltip>
  );
}

function NotificationItem({ notification, onNavigate }: { notification: NotificationDto; onNavigate?: () => void }) {
  const user = useCurrentUser();
  const markRead = useMarkRead();
  const unread = isUnread(notification);
  const heading = notification.title || 'Notification';
  const link = notificationLink(notification, user.platformRole);

  return (
    <Paper component="article" withBorder p="sm" aria-label={heading} data-testid="notification-item" data-unread={unread} bg={unread ? 'var(--mantine-primary-color-0)' : undefined}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
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
          <Group gap="sm" wrap="wrap">
            <NotificationTime notification={notification} />
            {link && (
              <Anchor
                component={Link}
                to={link.to}
                size="xs"
                data-testid="notification-link"
                onClick={() => {
                  if (unread) markRead.mutate(notification.id);
                  onNavigate?.();
                }}
              >
                {link.label}
              </Anchor>
            )}
          </Group>
          {markRead.error && (
            <Text size="xs" c="red" role="alert">
              {markRead.error.message}
            </Text>
          )}
        </Stack>
        {unread && (
          <Button size="compact-xs" variant="light" loading={markRead.isPending} onClick={() => markRead.mutate(notification.id)}>
            Mark read
          </Button>
        )}
      </Group>
    </Paper>
  );
}

export function NotificationList({ items, empty, onNavigate }: { items: readonly NotificationDto[]; empty: string; onNavigate?: () => void }) {
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
        <NotificationItem key={notification.id} notification={notification} onNavigate={onNavigate} />
      ))}
    </Stack>
  );
}

/** "Mark all read": every unread notification of the signed-in user (the server touches no one else's). */
export function MarkAllReadButton({ unread }: { unread: number }) {
  const markAll = useMarkAllRead();
  return (
    <Button
      size="compact-sm"
      variant="subtle"
      disabled={unread === 0}
      loading={markAll.isPending}
      data-testid="mark-all-read"
      onClick={() =>
        markAll.mutate(undefined, {
          onSuccess: (result) => toast.success(result.updated === 1 ? '1 notification marked read' : `${result.updated} notifications marked read`),
          onError: (error) => toast.error(`Could not mark them read: ${error.message}`),
        })
      }
    >
      Mark all read
    </Button>
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
