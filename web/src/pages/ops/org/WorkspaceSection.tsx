import { Alert, Button, Card, Group, Table, Text, Title } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { amApi, amKeys } from '../../../ops/am.api';
import { formatDateTime } from '../../../ops/format';
import { allowedMailboxActions, type MailboxAction } from '../../../ops/mailbox';
import { MailboxBadge } from '../../../ops/MailboxBadge';

const ACTION_LABELS: Record<MailboxAction, string> = { provision: 'Provision now', suspend: 'Suspend', restore: 'Restore' };

/** The Workspace section of an OSA: its stored address and its mailbox lifecycle (spec 3.3). */
export function WorkspaceSection({ osa }: { osa: OsaDto }) {
  const queryClient = useQueryClient();
  const act = useMutation({
    mutationFn: (action: MailboxAction) => amApi.mailboxAction(osa.orgId, osa.id, action),
    onSuccess: async (updated) => {
      queryClient.setQueryData(amKeys.assignment(osa.orgId, osa.id), updated);
      await queryClient.invalidateQueries({ queryKey: amKeys.assignments(osa.orgId) });
    },
  });
  const allowed = allowedMailboxActions(osa);

  return (
    <Card withBorder component="section" aria-label="Workspace" data-testid="workspace-section">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Workspace
        </Title>
        <MailboxBadge osa={osa} />
      </Group>
      <Table variant="vertical" withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={200}>Address</Table.Th>
            <Table.Td>
              <code data-testid="osa-alias">{osa.email_alias}</code>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Mailbox user</Table.Th>
            <Table.Td>{osa.mailboxUserId ?? '—'}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Provisioned</Table.Th>
            <Table.Td>{formatDateTime(osa.mailboxProvisionedAt)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Suspended</Table.Th>
            <Table.Td>{formatDateTime(osa.mailboxSuspendedAt)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Archived</Table.Th>
            <Table.Td>{formatDateTime(osa.mailboxArchivedAt)}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      <Group mt="md">
        {(['provision', 'suspend', 'restore'] as const).map((action) => (
          <Button
            key={action}
            variant={action === 'suspend' ? 'light' : 'filled'}
            color={action === 'suspend' ? 'orange' : undefined}
            disabled={!allowed[action] || act.isPending}
            loading={act.isPending && act.variables === action}
            onClick={() => act.mutate(action)}
          >
            {ACTION_LABELS[action]}
          </Button>
        ))}
      </Group>
      {osa.mailboxStatus === 'provisioning' && !osa.mailboxUserId && (
        <Text size="sm" c="dimmed" mt="xs">
          The mailbox is being created; this usually takes about 30 seconds.
        </Text>
      )}
      {act.error && (
        <Alert color="red" role="alert" title="The mailbox action failed" mt="sm">
          {act.error.message}
        </Alert>
      )}
    </Card>
  );
}
