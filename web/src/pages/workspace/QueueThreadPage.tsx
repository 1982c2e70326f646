import { Anchor, Breadcrumbs, Divider, Grid, Group, Paper, Stack, Table, Text } from '@mantine/core';
import type { ConversationDto, QueueItemDto } from '@contracts';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useCurrentUser } from '../../auth/current-user';
import { ThreadScroll } from '../../conversations/MessageBubble';
import { ReasonBadge, StatusBadge } from '../../conversations/StatusBadge';
import { conversationTitle, useConversationLive, useThread } from '../../conversations/thread';
import { Page } from '../../layout/Page';
import { formatDateTime } from '../../ops/format';
import { QueryAlert, SectionLoader } from '../../ops/QueryAlert';
import { AssignControl } from './AssignControl';
import { QUEUE_PATH } from './paths';
import { channelName, useQueueItem } from './queue-data';
import { SlaDeadline } from './QueueTable';
import { StaffComposer } from './StaffComposer';
import { StaffMessage } from './StaffMessage';
import { StatusForm } from './StatusForm';

function Details({ conversation, item }: { conversation: ConversationDto; item: QueueItemDto | undefined }) {
  const rows: [string, ReactNode][] = [
    ['Org', item?.orgName ?? '—'],
    ['Specialist', conversation.specialist.name],
    ['Channel', channelName(conversation.channel)],
    ['Status', <StatusBadge status={conversation.status} />],
    ['Reason', item ? <ReasonBadge reason={item.reason} /> : 'Not on the attention list'],
  ];
  if (item?.note) rows.push(['Client note', item.note]);
  rows.push(['SLA deadline', item ? <SlaDeadline item={item} /> : '—']);
  if (conversation.status === 'snoozed') rows.push(['Snoozed until', formatDateTime(conversation.snoozeUntil)]);
  rows.push(['Started', formatDateTime(conversation.createdAt)]);
  return (
    <Table variant="vertical" withRowBorders={false} data-testid="thread-details">
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w={120}>{label}</Table.Th>
            <Table.Td>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * `/workspace/queue/:conversationId`: a thread as staff work on it, live. A message, sent or
 * pushed, goes into the cached thread without a reload; only a status change reloads the item.
 */
export function QueueThreadPage() {
  const { conversationId = '' } = useParams();
  const user = useCurrentUser();
  const { query, conversation, messages } = useThread(conversationId);
  const item = useQueueItem(conversationId);
  // Pushed messages and status changes land in the cache; a status change reloads the item once.
  useConversationLive(conversationId);

  return (
    <Page title={conversation ? conversationTitle(conversation) : 'Conversation'}>
      <Breadcrumbs>
        <Anchor component={Link} to={QUEUE_PATH}>
          Attention list
        </Anchor>
        <Text>{item?.orgName ?? conversation?.specialist.name ?? '…'}</Text>
      </Breadcrumbs>
      {query.isPending && <SectionLoader label="Loading the conversation" />}
      {!conversation && <QueryAlert title="Could not load the conversation" error={query.error} retry={() => void query.refetch()} />}
      {conversation && (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 8 }}>
            <Paper withBorder p="md" data-testid="conversation-thread" data-id={conversation.id} data-status={conversation.status}>
              <Stack gap="sm">
                <ThreadScroll
                  followKey={`${messages.length}:${messages.at(-1)?.id ?? ''}`}
                  hasOlder={query.hasNextPage}
                  loadingOlder={query.isFetchingNextPage}
                  onLoadOlder={() => void query.fetchNextPage()}
                >
                  {messages.length === 0 && (
                    <Text size="sm" c="dimmed" ta="center">
                      No messages yet.
                    </Text>
                  )}
                  {messages.map((message) => (
                    <StaffMessage key={message.id} message={message} conversation={conversation} userId={user.id} />
                  ))}
                </ThreadScroll>
                <Divider />
                <StaffComposer conversationId={conversation.id} specialistName={conversation.specialist.name} />
              </Stack>
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Stack gap="md">
              <Paper withBorder p="md">
                <Details conversation={conversation} item={item} />
              </Paper>
              <Paper withBorder p="md">
                <Stack gap="md">
                  <StatusForm key={`${conversation.status}:${conversation.snoozeUntil ?? ''}`} conversation={conversation} />
                  <Divider />
                  <AssignControl conversation={conversation} />
                </Stack>
              </Paper>
              <Group>
                <Anchor component={Link} to={QUEUE_PATH} size="sm">
                  Back to the attention list
                </Anchor>
              </Group>
            </Stack>
          </Grid.Col>
        </Grid>
      )}
    </Page>
  );
}
