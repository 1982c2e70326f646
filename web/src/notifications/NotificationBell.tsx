import { ActionIcon, Anchor, Group, Indicator, Popover, ScrollArea, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useCurrentUser } from '../auth/current-user';
import { isClientRole } from '../auth/roles';
import { useNotifications } from './notifications';
import { NotificationInbox } from './NotificationInbox';
import { MarkAllReadButton, NotificationList, WithNotifications } from './NotificationList';

const LATEST_COUNT = 5;
const INBOX_PATH = '/client/inbox';

function BellIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M10 5a2 2 0 1 1 4 0a7 7 0 0 1 4 6v3a4 4 0 0 0 2 3h-16a4 4 0 0 0 2 -3v-3a7 7 0 0 1 4 -6" />
      <path d="M9 17v1a3 3 0 0 0 6 0v-1" />
    </svg>
  );
}

/**
 * The header bell with the unread count. Client roles see the latest items and a link to their
 * inbox page; internal roles have no inbox page, so the popover holds their whole inbox.
 */
export function NotificationBell() {
  const user = useCurrentUser();
  const { unreadCount } = useNotifications();
  const [opened, setOpened] = useState(false);
  const hasInboxPage = isClientRole(user.platformRole);

  return (
    <Indicator inline size={18} offset={4} color="red" disabled={unreadCount === 0} label={<span data-testid="unread-count">{unreadCount}</span>}>
      <Popover opened={opened} onChange={setOpened} width={hasInboxPage ? 360 : 440} position="bottom-end" shadow="md" withArrow>
        <Popover.Target>
          <ActionIcon variant="default" size="lg" aria-label="Notifications" data-testid="notification-bell" onClick={() => setOpened((open) => !open)}>
            <BellIcon />
          </ActionIcon>
        </Popover.Target>
        <Popover.Dropdown data-testid="notification-popover">
          <Group justify="space-between" mb="xs">
            <Text fw={600}>Notifications</Text>
            <Group gap="xs">
              <Text size="xs" c="dimmed">
                {unreadCount} unread
              </Text>
              {hasInboxPage && <MarkAllReadButton unread={unreadCount} />}
            </Group>
          </Group>
          <ScrollArea.Autosize mah={420} type="auto">
            {hasInboxPage ? (
              <WithNotifications>{(items) => <NotificationList items={items.slice(0, LATEST_COUNT)} empty="No notifications yet." onNavigate={() => setOpened(false)} />}</WithNotifications>
            ) : (
              <NotificationInbox tabInUrl={false} onNavigate={() => setOpened(false)} />
            )}
          </ScrollArea.Autosize>
          {hasInboxPage && (
            <Anchor component={Link} to={INBOX_PATH} size="sm" display="block" mt="sm" onClick={() => setOpened(false)}>
              Open inbox
            </Anchor>
          )}
        </Popover.Dropdown>
      </Popover>
    </Indicator>
  );
}
