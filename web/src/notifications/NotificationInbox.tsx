import { Badge, Tabs } from '@mantine/core';
import { inboxTabOf, type InboxTab, type NotificationDto } from '@contracts/notifications';
import { isUnread } from './notifications';
import { NotificationList, WithNotifications } from './NotificationList';

const TABS: readonly { value: InboxTab; label: string; empty: string }[] = [
  { value: 'all', label: 'All', empty: 'No notifications yet.' },
  { value: 'mentions', label: 'Mentions', empty: 'No mentions.' },
  { value: 'assignments', label: 'Assignments', empty: 'No assignments.' },
  { value: 'system', label: 'System', empty: 'No system notifications.' },
];

const inTab = (tab: InboxTab, items: readonly NotificationDto[]): NotificationDto[] =>
  tab === 'all' ? [...items] : items.filter((item) => inboxTabOf(item.type) === tab);

/** The inbox: the tabs of spec 6.2, each listing its notifications, classified by type. */
export function NotificationInbox() {
  return (
    <WithNotifications>
      {(items) => (
        // Unmount hidden panels, so that an item is on the page once.
        <Tabs defaultValue="all" keepMounted={false}>
          <Tabs.List mb="md">
            {TABS.map((tab) => {
              const unread = inTab(tab.value, items).filter(isUnread).length;
              return (
                <Tabs.Tab
                  key={tab.value}
                  value={tab.value}
                  rightSection={
                    unread > 0 ? (
                      <Badge size="xs" circle aria-label={`${unread} unread`}>
                        {unread}
                      </Badge>
                    ) : null
                  }
                >
                  {tab.label}
                </Tabs.Tab>
              );
            })}
          </Tabs.List>
          {TABS.map((tab) => (
            <Tabs.Panel key={tab.value} value={tab.value}>
              <NotificationList items={inTab(tab.value, items)} empty={tab.empty} />
            </Tabs.Panel>
          ))}
        </Tabs>
      )}
    </WithNotifications>
  );
}
