import type { NotificationDto } from '@contracts/notifications';
import { REALTIME_NAMESPACE, type ClientToServerEvents, type ServerToClientEvents } from '@contracts/realtime';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { io, type Socket } from 'socket.io-client';
import { useCurrentUser } from '../auth/current-user';
import { useToken } from '../auth/session';
import { mergeNotification, notificationsKey } from './notifications';

/**
 * Keeps the notification list of the signed-in user live: one socket per session (token), closed
 * when the session ends (sign out unmounts the signed-in shell) or the token changes.
 */
export function useNotificationsSocket(): void {
  const token = useToken();
  const user = useCurrentUser();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!token) return;
    const queryKey = notificationsKey(user.id);
    const reload = () => void queryClient.invalidateQueries({ queryKey });

    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(REALTIME_NAMESPACE, {
      path: '/socket.io/',
      auth: { token },
      transports: ['websocket', 'polling'],
      tryAllTransports: true,
    });

    // Missed pushes are not replayed (spec 6.1.2): every (re)connect reloads the list.
    socket.on('connect', reload);
    socket.on('notification:new', (notification: NotificationDto) => {
      // A list request in flight may have been answered before this row existed: ask again.
      const inFlight = queryClient.isFetching({ queryKey }) > 0;
      queryClient.setQueryData<NotificationDto[]>(queryKey, (list) => mergeNotification(list, notification));
      if (inFlight) reload();
    });
    socket.on('connect_error', () => {
      // Refused by the server (a bad or revoked token) the socket gives up; the list request then
      // answers 401, which ends the session. Other errors are retried by the socket itself.
      if (!socket.active) reload();
    });

    return () => {
      socket.disconnect();
    };
  }, [token, user.id, queryClient]);
}
