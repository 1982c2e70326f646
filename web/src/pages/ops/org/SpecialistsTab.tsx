import { Anchor, Badge, Button, Card, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { toast } from '../../../layout/toast';
import { amApi } from '../../../ops/am.api';
import { ConfirmDialog } from '../../../layout/ConfirmDialog';
import { formatRate } from '../../../ops/format';
import { MailboxBadge } from '../../../ops/MailboxBadge';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useAssignments, useInvalidateOrg } from '../../../ops/queries';
import { unassignConsequence } from '../../../ops/unassign';
import { setupPath } from '../wizard/steps';

/** Unassigns one OSA after the AM confirmed what it stops. */
function useUnassign(orgId: string) {
  const invalidateOrg = useInvalidateOrg();
  const [target, setTarget] = useState<OsaDto | null>(null);
  const unassign = useMutation({
    mutationFn: (osa: OsaDto) => amApi.unassign(orgId, osa.specialistId),
    onSuccess: async (_, osa) => {
      setTarget(null);
      toast.success(`${osa.specialist.name} is unassigned from this org.`);
      await invalidateOrg(orgId);
    },
  });
  return {
    target,
    ask: (osa: OsaDto) => {
      unassign.reset();
      setTarget(osa);
    },
    dialog: (
      <ConfirmDialog
        opened={target !== null}
        title={`Unassign ${target?.specialist.name ?? ''}?`}
        confirmLabel="Unassign"
        loading={unassign.isPending}
        error={unassign.error}
        onConfirm={() => target && unassign.mutate(target)}
        onCancel={() => setTarget(null)}
      >
        <Text size="sm" data-testid="unassign-consequence">
          {target ? `${target.specialist.name}: ${unassignConsequence(target)}` : ''}
        </Text>
      </ConfirmDialog>
    ),
  };
}

/** The org's assignments, each leading to its OSA detail; Reassign opens the Specialist step, Unassign asks first. */
export function SpecialistsTab({ orgId }: { orgId: string }) {
  const assignments = useAssignments(orgId);
  const unassign = useUnassign(orgId);
  return (
    <>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Text size="sm" c="dimmed">
          Specialists assigned to this org, each with its own workspace address and mailbox.
        </Text>
        <Button component={Link} to={setupPath(orgId, 'step-2')} variant="light">
          Reassign
        </Button>
      </Group>
      {assignments.isPending && <SectionLoader label="Loading the Specialists" />}
      <QueryAlert title="Could not load the Specialists" error={assignments.error} retry={() => void assignments.refetch()} />
      {assignments.data?.length === 0 && <Text c="dimmed">No Specialist is assigned yet.</Text>}
      {assignments.data && assignments.data.length > 0 && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={760} type="native" tabIndex={0}>
            <Table data-testid="specialists-table" highlightOnHover verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Specialist</Table.Th>
                  <Table.Th>Rate</Table.Th>
                  <Table.Th>Workspace address</Table.Th>
                  <Table.Th>Mailbox</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {assignments.data.map((osa) => (
                  <Table.Tr key={osa.id} data-testid="specialist-row" data-primary={osa.isPrimary}>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Anchor component={Link} to={`/ops/clients/${orgId}/specialists/${osa.id}`}>
                          {osa.specialist.name}
                        </Anchor>
                        {osa.isPrimary && (
                          <Badge variant="light" size="sm" data-testid="primary-badge">
                            Primary
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>{formatRate(osa.rate)}</Table.Td>
                    <Table.Td>
                      <code data-testid="osa-alias">{osa.email_alias}</code>
                    </Table.Td>
                    <Table.Td>
                      <MailboxBadge osa={osa} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <Button size="xs" variant="subtle" color="red" aria-label={`Unassign ${osa.specialist.name}`} onClick={() => unassign.ask(osa)}>
                        Unassign
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      {unassign.dialog}
    </>
  );
}
