import { Badge, Group, Tabs } from '@mantine/core';
import { inboxTabOf, type InboxTab, type NotificationDto } from '@contracts/notifications';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { isUnread } from './notifications';
import { MarkAllReadButton, NotificationList, WithNotifications } from './NotificationList';

const TABS: readonly { value: InboxTab; label: string; empty: string }[] = [
  { value: 'all', label: 'All', empty: 'No notifications yet.' },
  { value: 'mentions', label: 'Mentions', empty: 'No mentions.' },
  { value: 'assignments', label: 'Assignments', empty: 'No assignments.' },
  { value: 'system', label: 'System', empty: 'No system notifications.' },
];
/** The query parameter that holds the open tab (`?tab=mentions`); absent means All. */
export const INBOX_TAB_PARAM = 'tab';

const inTab = (tab: InboxTab, items: readonly NotificationDto[]): NotificationDto[] => (tab === 'all' ? [...items] : items.filter((item) => inboxTabOf(item.type) === tab));

const tabOf = (value: string | null): InboxTab => TABS.find((tab) => tab.value === value)?.value ?? 'all';

/** The open tab: in the page's URL (a page), or kept here (a popover over another page). */
function useInboxTab(inUrl: boolean): [InboxTab, (tab: InboxTab) => void] {
  const [params, setParams] = useSearchParams();
  const [local, setLocal] = useState<InboxTab>('all');
  if (!inUrl) return [local, setLocal];
  const set = (tab: InboxTab) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (tab === 'all') next.delete(INBOX_TAB_PARAM);
        else next.set(INBOX_TAB_PARAM, tab);
        return next;
      },
      { replace: true },
    );
  return [tabOf(params.get(INBOX_TAB_PARAM)), set];
}

/**
 * The inbox: the tabs of spec 6.2 (All, Mentions, Assignments, System), classified by type, each
 * entry with its time and a link to what it is about, and "Mark all read". On a page the open tab
 * is in the URL; `tabInUrl={false}` keeps it local (the header popover). `onNavigate` runs when a
 * link of an entry is followed.
 */
export function NotificationInbox({ tabInUrl = true, onNavigate }: { tabInUrl?: boolean; onNavigate?: () => void } = {}) {
  const [tab, setTab] = useInboxTab(tabInUrl);
  return (
    <WithNotifications>
      {(items) => (
        // Unmount hidden panels, so that an item is on the page once.
        <Tabs value={tab} onChange={(value) => setTab(tabOf(value))} keepMounted={false}>
          <Group justify="space-between" wrap="wrap" gap="xs" mb="md">
            <Tabs.List>
              {TABS.map((entry) => {
                const unread = inTab(entry.value, items).filter(isUnread).length;
                return (
                  <Tabs.Tab
                    key={entry.value}
                    value={entry.value}
                    rightSection={
                      unread > 0 ? (
                        <Badge size="xs" circle aria-label={`${unread} unread`}>
                          {unread}
                        </Badge>
                      ) : null
                    }
                  >
                    {entry.label}
                  </Tabs.Tab>
                );
              })}
            </Tabs.List>
            <MarkAllReadButton unread={items.filter(isUnread).length} />
          </Group>
          {TABS.map((entry) => (
            <Tabs.Panel key={entry.value} value={entry.value}>
              <NotificationList items={inTab(entry.value, items)} empty={entry.empty} onNavigate={onNavigate} />
            </Tabs.Panel>
          ))}
        </Tabs>
      )}
    </WithNotifications>
  );
}
