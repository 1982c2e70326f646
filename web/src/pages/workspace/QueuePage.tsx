import { Button, Group, Tabs, Text } from '@mantine/core';
import { QUEUE_TABS, type QueueTab } from '@contracts';
import { useSearchParams } from 'react-router';
import { useCurrentUser } from '../../auth/current-user';
import { QUEUE_TAB_LABELS, useQueue, useQueueLive } from '../../conversations/queue';
import { Page } from '../../layout/Page';
import { QueryAlert, SectionLoader } from '../../ops/QueryAlert';
import { QueueTable } from './QueueTable';

const EMPTY: Record<QueueTab, string> = {
  all: 'Nothing needs an Expert right now.',
  pending: 'Nothing is pending.',
  awaiting_client: 'No conversation is awaiting a client reply.',
  resolved: 'Nothing resolved yet.',
  snoozed: 'Nothing is snoozed.',
};

function QueueTabPanel({ tab }: { tab: QueueTab }) {
  const user = useCurrentUser();
  const { query, items } = useQueue(tab);
  if (query.isPending) return <SectionLoader label="Loading the attention list" />;
  return (
    <>
      <QueryAlert title="Could not load the attention list" error={query.error} retry={() => void query.refetch()} />
      {query.data && items.length === 0 && (
        <Text c="dimmed" data-testid="queue-empty">
          {EMPTY[tab]}
        </Text>
      )}
      {items.length > 0 && <QueueTable items={items} currentUserId={user.id} />}
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

const isTab = (value: string | null): value is QueueTab => (QUEUE_TABS as readonly (string | null)[]).includes(value);

/** `/workspace/queue`: the Expert attention list (spec 4.4), one tab per status (`?status=`), live. */
export function QueuePage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const status = searchParams.get('status');
  const tab: QueueTab = isTab(status) ? status : 'all';
  useQueueLive();

  return (
    <Page title="Attention list">
      <Text c="dimmed">Escalations and replies that failed, in the orgs you cover; most recently changed first.</Text>
      <Tabs value={tab} onChange={(value) => setSearchParams(value && value !== 'all' ? { status: value } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List>
          {QUEUE_TABS.map((value) => (
            <Tabs.Tab key={value} value={value} data-testid={`queue-tab-${value}`}>
              {QUEUE_TAB_LABELS[value]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {QUEUE_TABS.map((value) => (
          <Tabs.Panel key={value} value={value} pt="md">
            <QueueTabPanel tab={value} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Page>
  );
}
