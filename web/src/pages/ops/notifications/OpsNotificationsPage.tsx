import { Page } from '../../../layout/Page';
import { NotificationInbox } from '../../../notifications/NotificationInbox';

/** `/ops/notifications`: the staff's notification inbox (spec 6.2), reachable from the navigation. */
export function OpsNotificationsPage() {
  return (
    <Page title="Notifications">
      <NotificationInbox />
    </Page>
  );
}
