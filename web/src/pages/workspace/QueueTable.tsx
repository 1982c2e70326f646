import { Anchor, Badge, Group, Mark, Stack, Table, Text } from '@mantine/core';
import type { QueueItemDto, QueueMatch } from '@contracts';
import { Link, useNavigate } from 'react-router';
import { ReasonBadge, StatusBadge } from '../../conversations/StatusBadge';
import { formatDateTime } from '../../ops/format';
import { queueThreadPath } from './paths';
import { channelName, expertName, useQueueFilters } from './queue-data';

/** Past its SLA deadline and still open. */
export function isOverdue(item: Pick<QueueItemDto, 'sla_deadline' | 'status'>, now = Date.now()): boolean {
  return item.sla_deadline !== null && item.status !== 'resolved' && Date.parse(item.sla_deadline) < now;
}

export function SlaDeadline({ item }: { item: Pick<QueueItemDto, 'sla_deadline' | 'status'> }) {
  if (!item.sla_deadline) return <Text c="dimmed">—</Text>;
  const overdue = isOverdue(item);
  return (
    <Group gap={4} wrap="nowrap" data-testid="queue-sla" data-overdue={overdue}>
      <Text size="sm" c={overdue ? 'red' : undefined}>
        {formatDateTime(item.sla_deadline)}
      </Text>
      {overdue && (
        <Badge size="xs" color="red">
          overdue
        </Badge>
      )}
    </Group>
  );
}

/** Who works on a thread, by name ("you" for the caller). */
export function AssignedExpert({ expertId, currentUserId }: { expertId: string | null; currentUserId: string }) {
  const name = expertName(useQueueFilters(), expertId, currentUserId);
  return name ? <>{name}</> : <Text c="dimmed">—</Text>;
}

/** A matching message of a search: the words found marked. */
function MatchExcerpt({ match }: { match: QueueMatch }) {
  return (
    <Text size="xs" c="dimmed" lineClamp={2} data-testid="queue-match">
      {match.is_internal && (
        <Badge size="xs" color="yellow" variant="light" mr={4}>
          Internal note
        </Badge>
      )}
      {match.excerpt.map((part, i) => (part.match ? <Mark key={i}>{part.text}</Mark> : <span key={i}>{part.text}</span>))}
    </Text>
  );
}

/** The attention-list items; a row opens its thread. Scrolls inside its card on a narrow screen. */
export function QueueTable({ items, currentUserId }: { items: QueueItemDto[]; currentUserId: string }) {
  const navigate = useNavigate();
  return (
    <Table.ScrollContainer minWidth={860} type="native">
      <Table highlightOnHover data-testid="queue-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Conversation</Table.Th>
            <Table.Th>Org</Table.Th>
            <Table.Th>Specialist</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th>Reason</Table.Th>
            <Table.Th>SLA deadline</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Assigned</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr
              key={item.id}
              data-testid="queue-item"
              data-conversation-id={item.conversationId}
              data-status={item.status}
              style={{ cursor: 'pointer' }}
              onClick={(event) => {
                if ((event.target as HTMLElement).closest('a')) return;
                void navigate(queueThreadPath(item.conversationId));
              }}
            >
              <Table.Td maw={320}>
                <Stack gap={2}>
                  <Anchor component={Link} to={queueThreadPath(item.conversationId)} data-testid="queue-item-link">
                    {item.subject ?? `Conversation with ${item.specialist.name}`}
                  </Anchor>
                  {item.note && (
                    <Text size="xs" c="dimmed" lineClamp={1} title={item.note}>
                      {item.note}
                    </Text>
                  )}
                  {item.matches?.map((match) => (
                    <MatchExcerpt key={match.messageId} match={match} />
                  ))}
                </Stack>
              </Table.Td>
              <Table.Td data-testid="queue-org">{item.orgName}</Table.Td>
              <Table.Td data-testid="queue-specialist">{item.specialist.name}</Table.Td>
              <Table.Td>{channelName(item.channel)}</Table.Td>
              <Table.Td>
                <ReasonBadge reason={item.reason} />
              </Table.Td>
              <Table.Td>
                <SlaDeadline item={item} />
              </Table.Td>
              <Table.Td>
                <StatusBadge status={item.status} />
              </Table.Td>
              <Table.Td data-testid="queue-assigned">
                <AssignedExpert expertId={item.assigned_expert_id} currentUserId={currentUserId} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
