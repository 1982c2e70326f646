import type { MarkAllReadResponse } from '@contracts';
import type { NotificationDto } from '@contracts/notifications';
import { apiFetch } from '../api/client';

export const notificationsApi = {
  /** The caller's notifications, newest first (spec 4.5). */
  list: (query: { limit: number; offset?: number }, signal?: AbortSignal) => apiFetch<NotificationDto[]>('/notifications', { query, signal }),
  /** Marks every unread notification of the caller read (only the caller's). */
  markAllRead: () => apiFetch<MarkAllReadResponse>('/notifications/read-all', { method: 'PATCH' }),
  markRead: (id: string) => apiFetch<NotificationDto>(`/notifications/${encodeURIComponent(id)}/read`, { method: 'PATCH' }),
};
