import { Alert, Button, Card, Group, List, Table, Text, Title } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { toast } from '../../../layout/toast';
import { amApi, amKeys } from '../../../ops/am.api';
import { ConfirmDialog } from '../../../layout/ConfirmDialog';
import { formatDateTime } from '../../../ops/format';
import { allowedMailboxActions, type MailboxAction } from '../../../ops/mailbox';
import { MailboxBadge } from '../../../ops/MailboxBadge';

const ACTION_LABELS: Record<MailboxAction, string> = { provision: 'Provision now', suspend: 'Suspend', restore: 'Restore' };

const DONE: Record<MailboxAction, string> = {
  provision: 'The mailbox is being created; this usually takes about 30 seconds.',
  suspend: 'Mailbox suspended: mail stops both ways until it is restored.',
  restore: 'Mailbox restored: the replies held meanwhile are being sent.',
};

/** What Suspend and Restore do (spec 3.3), said before the AM confirms them. */
function consequences(action: 'suspend' | 'restore', osa: OsaDto): { title: string; body: ReactNode; confirm: string; color: string } {
  if (action === 'suspend') {
    return {
      title: `Suspend the mailbox of ${osa.specialist.name}?`,
      confirm: 'Suspend mailbox',
      color: 'orange',
      body: (
        <List size="sm" spacing={4}>
          <List.Item>
            Mail to <code>{osa.email_alias}</code> is no longer received: it is kept on the Quarantine list instead of reaching the Specialist.
          </List.Item>
          <List.Item>No mail is sent from it: replies written meanwhile are held, not lost, and go out when the mailbox is restored.</List.Item>
          <List.Item>The web chat and the other channels keep working.</List.Item>
        </List>
      ),
    };
  }
  return {
    title: `Restore the mailbox of ${osa.specialist.name}?`,
    confirm: 'Restore mailbox',
    color: 'blue',
    body: (
      <List size="sm" spacing={4}>
        <List.Item>
          Mail to and from <code>{osa.email_alias}</code> works again.
        </List.Item>
        <List.Item>The replies held while it was suspended are sent now, once each, in the order they were written.</List.Item>
        <List.Item>Mail that arrived while it was suspended stays on the Quarantine list; it is not delivered to the Specialist afterwards.</List.Item>
      </List>
    ),
  };
}

/** The Workspace section of an OSA: its stored address and its mailbox lifecycle (spec 3.3). */
export function WorkspaceSection({ osa }: { osa: OsaDto }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<'suspend' | 'restore' | null>(null);
  const act = useMutation({
    mutationFn: (action: MailboxAction) => amApi.mailboxAction(osa.orgId, osa.id, action),
    onSuccess: async (updated, action) => {
      setConfirming(null);
      toast.success(DONE[action]);
      queryClient.setQueryData(amKeys.assignment(osa.orgId, osa.id), updated);
      await queryClient.invalidateQueries({ queryKey: amKeys.assignments(osa.orgId) });
    },
  });
  const allowed = allowedMailboxActions(osa);
  const dialog = confirming ? consequences(confirming, osa) : null;

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
      <Group mt="md" wrap="wrap">
        {(['provision', 'suspend', 'restore'] as const).map((action) => (
          <Button
            key={action}
            variant={action === 'suspend' ? 'light' : 'filled'}
            color={action === 'suspend' ? 'orange' : undefined}
            disabled={!allowed[action] || act.isPending}
            loading={act.isPending && act.variables === action}
            onClick={() => {
              act.reset();
              if (action === 'provision') act.mutate(action);
              else setConfirming(action);
            }}
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
      <ConfirmDialog
        opened={dialog !== null}
        title={dialog?.title ?? ''}
        confirmLabel={dialog?.confirm ?? ''}
        color={dialog?.color}
        loading={act.isPending}
        error={confirming ? act.error : null}
        onConfirm={() => confirming && act.mutate(confirming)}
        onCancel={() => setConfirming(null)}
      >
        {dialog?.body}
      </ConfirmDialog>
      {act.error && !confirming && (
        <Alert color="red" role="alert" title="The mailbox action failed" mt="sm">
          {act.error.message}
        </Alert>
      )}
    </Card>
  );
}
