import { Page } from '../../layout/Page';
import { NotificationInbox } from '../../notifications/NotificationInbox';

/** `/workspace/notifications`: the Expert's notifications (spec 6.2), escalations and failures among them. */
export function WorkspaceNotificationsPage() {
  return (
    <Page title="Notifications">
      <NotificationInbox />
    </Page>
  );
}
