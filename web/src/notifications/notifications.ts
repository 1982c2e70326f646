import type { NotificationDto } from '@contracts/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCurrentUser } from '../auth/current-user';
import { notificationsApi } from './notifications.api';

/** How many of the latest notifications the app keeps; the unread count is taken from these. */
export const LIST_LIMIT = 100;

export const notificationsKey = (userId: string) => ['notifications', userId, { limit: LIST_LIMIT }] as const;

const NONE: NotificationDto[] = [];

export const isUnread = (notification: NotificationDto): boolean => notification.readAt === null;

/** Puts `item` in the list: replaces the entry with its id, else adds it on top (newest first). */
export function mergeNotification(list: NotificationDto[] | undefined, item: NotificationDto): NotificationDto[] {
  if (!list) return [item];
  return list.some((entry) => entry.id === item.id) ? list.map((entry) => (entry.id === item.id ? item : entry)) : [item, ...list];
}

/** The signed-in user's latest notifications, kept live by useNotificationsSocket. */
export function useNotifications() {
  const user = useCurrentUser();
  const query = useQuery({
    queryKey: notificationsKey(user.id),
    queryFn: ({ signal }) => notificationsApi.list({ limit: LIST_LIMIT }, signal),
    staleTime: 30_000,
  });
  const items = query.data ?? NONE;
  // There is no unread-count endpoint (spec 4.5): the count is derived from the list.
  return { query, items, unreadCount: items.filter(isUnread).length };
}

export function useMarkRead() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => notificationsApi.markRead(id),
    onSuccess: (updated) => {
      queryClient.setQueryData<NotificationDto[]>(notificationsKey(user.id), (list) => list?.map((entry) => (entry.id === updated.id ? updated : entry)));
    },
  });
}

/** Marks all the signed-in user's notifications read, then reloads the list from the server. */
export function useMarkAllRead() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => notificationsApi.markAllRead(),
    onSuccess: async () => {
      const now = new Date().toISOString();
      queryClient.setQueryData<NotificationDto[]>(notificationsKey(user.id), (list) => list?.map((entry) => (entry.readAt ? entry : { ...entry, readAt: now })));
      await queryClient.invalidateQueries({ queryKey: notificationsKey(user.id) });
    },
  });
}
