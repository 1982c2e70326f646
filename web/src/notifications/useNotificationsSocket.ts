import type { NotificationDto } from '@contracts/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useCurrentUser } from '../auth/current-user';
import { applyPush, listen, useRealtime } from '../realtime/socket';
import { mergeNotification, notificationsKey } from './notifications';

/**
 * Keeps the notification list of the signed-in user live over the session's socket, which closes
 * when the session ends (sign out unmounts the signed-in shell) or the token changes.
 */
export function useNotificationsSocket(): void {
  const user = useCurrentUser();
  const queryClient = useQueryClient();

  useRealtime(
    (socket) => {
      const queryKey = notificationsKey(user.id);
      const reload = () => void queryClient.invalidateQueries({ queryKey });
      const onConnectError = () => {
        // Refused by the server (a bad or revoked token) the socket gives up; the list request then
        // answers 401, which ends the session. Other errors are retried by the socket itself.
        if (!socket.active) reload();
      };
      // Closed by the server: the session ended or the account lost access (logout elsewhere,
      // suspension, a password change). Reloading asks the server, whose 401 ends the session here.
      const onDisconnect = (reason: string) => {
        if (reason === 'io server disconnect') reload();
      };
      socket.on('connect_error', onConnectError);
      socket.on('disconnect', onDisconnect);
      // Missed pushes are not replayed (spec 6.1.2): every (re)connect reloads the list.
      const stop = listen(
        socket,
        {
          'notification:new': (notification: NotificationDto) => applyPush<NotificationDto[]>(queryClient, queryKey, (list) => mergeNotification(list, notification)),
        },
        reload,
      );
      return () => {
        stop();
        socket.off('connect_error', onConnectError);
        socket.off('disconnect', onDisconnect);
      };
    },
    [user.id, queryClient],
  );
}
