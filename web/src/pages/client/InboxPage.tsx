import { NotificationInbox } from '../../notifications/NotificationInbox';
import { Page } from '../../layout/Page';

export function InboxPage() {
  return (
    <Page title="Inbox">
      <NotificationInbox />
    </Page>
  );
}
