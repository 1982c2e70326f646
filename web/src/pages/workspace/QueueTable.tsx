import { Anchor, Badge, Group, Stack, Table, Text } from '@mantine/core';
import type { QueueItemDto } from '@contracts';
import { Link, useNavigate } from 'react-router';
import { ReasonBadge, StatusBadge } from '../../conversations/StatusBadge';
import { formatDateTime } from '../../ops/format';
import { queueThreadPath } from './paths';

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

export function AssignedExpert({ expertId, currentUserId }: { expertId: string | null; currentUserId: string }) {
  if (!expertId) return <Text c="dimmed">—</Text>;
  return <>{expertId === currentUserId ? 'you' : 'another Expert'}</>;
}

/** The attention-list items; a row opens its thread. */
export function QueueTable({ items, currentUserId }: { items: QueueItemDto[]; currentUserId: string }) {
  const navigate = useNavigate();
  return (
    <Table highlightOnHover data-testid="queue-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Conversation</Table.Th>
          <Table.Th>Org</Table.Th>
          <Table.Th>Specialist</Table.Th>
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
            <Table.Td>
              <Stack gap={0}>
                <Anchor component={Link} to={queueThreadPath(item.conversationId)} data-testid="queue-item-link">
                  {item.subject ?? 'No subject'}
                </Anchor>
                {item.note && (
                  <Text size="xs" c="dimmed" lineClamp={1} title={item.note}>
                    {item.note}
                  </Text>
                )}
              </Stack>
            </Table.Td>
            <Table.Td data-testid="queue-org">{item.orgName}</Table.Td>
            <Table.Td>{item.specialist.name}</Table.Td>
            <Table.Td>
              <ReasonBadge reason={item.reason} />
            </Table.Td>
            <Table.Td>
              <SlaDeadline item={item} />
            </Table.Td>
            <Table.Td>
              <StatusBadge status={item.status} />
            </Table.Td>
            <Table.Td>
              <AssignedExpert expertId={item.assigned_expert_id} currentUserId={currentUserId} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
