import { Button, Group, Paper, Tabs, Text } from '@mantine/core';
import { QUEUE_TABS, type QueueTab } from '@contracts';
import { useCurrentUser } from '../../auth/current-user';
import { QUEUE_TAB_LABELS, useQueueLive } from '../../conversations/queue';
import { Page } from '../../layout/Page';
import { QueryAlert, SectionLoader } from '../../ops/QueryAlert';
import { QueueFilters } from './QueueFilters';
import { QueueTable } from './QueueTable';
import { useQueueList, useQueueView, type QueueView } from './queue-data';

const EMPTY: Record<QueueTab, string> = {
  all: 'Nothing needs an Expert right now.',
  pending: 'Nothing is pending.',
  awaiting_client: 'No conversation is awaiting a client reply.',
  resolved: 'Nothing resolved yet.',
  snoozed: 'Nothing is snoozed.',
};

const narrowed = (view: QueueView) => Boolean(view.orgId || view.specialistId || view.channel || view.assignee || view.q);

function QueueResults({ view }: { view: QueueView }) {
  const user = useCurrentUser();
  const { query, items } = useQueueList(view);
  if (query.isPending) return <SectionLoader label="Loading the attention list" />;
  return (
    <>
      <QueryAlert title="Could not load the attention list" error={query.error} retry={() => void query.refetch()} />
      {query.data && items.length === 0 && (
        <Text c="dimmed" data-testid="queue-empty">
          {narrowed(view) ? 'Nothing matches the search and filters.' : EMPTY[view.status]}
        </Text>
      )}
      {items.length > 0 && (
        <Paper withBorder>
          <QueueTable items={items} currentUserId={user.id} />
        </Paper>
      )}
      {query.hasNextPage && (
        <Group justify="center" mt="md">
          <Button variant="default" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      )}
    </>
  );
}

/**
 * `/workspace/queue`: the Expert attention list (spec 4.4), one tab per status, filtered by org,
 * Specialist, channel and assignee and searched; all of it in the address (`?status=&org=&specialist=
 * &channel=&assignee=&q=`), live.
 */
export function QueuePage() {
  const [view, setView] = useQueueView();
  useQueueLive();

  return (
    <Page title="Attention list">
      <Text c="dimmed">Escalations and replies that failed, in the orgs you cover; most recently changed first.</Text>
      <QueueFilters view={view} onChange={setView} />
      <Tabs value={view.status} onChange={(status) => setView({ status: (status ?? 'all') as QueueTab })} keepMounted={false}>
        <Tabs.List>
          {QUEUE_TABS.map((value) => (
            <Tabs.Tab key={value} value={value} data-testid={`queue-tab-${value}`}>
              {QUEUE_TAB_LABELS[value]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {QUEUE_TABS.map((value) => (
          <Tabs.Panel key={value} value={value} pt="md">
            {value === view.status && <QueueResults view={view} />}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Page>
  );
}
