import { Alert, Anchor, Button, Card, Group, List, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError } from '../../../../api/client';
import { amApi, amKeys } from '../../../../ops/am.api';
import { OrgStatusBadge } from '../../../../ops/OrgStatusBadge';
import { useInvalidateOrg } from '../../../../ops/queries';
import type { OrgDto } from '../../../../ops/types';
import { missingLabel } from './gate';

function missingOf(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.code !== 'phase0_gate_failed') return [];
  const missing = (error.details as { missing?: unknown } | undefined)?.missing;
  return Array.isArray(missing) ? missing.filter((m): m is string => typeof m === 'string') : [];
}

/** Send invite (a later issue) or finish without invite: the org becomes active at once. */
export function FinishSetup({ org, ready }: { org: OrgDto; ready: boolean }) {
  const queryClient = useQueryClient();
  const invalidateOrg = useInvalidateOrg();
  const finish = useMutation({
    mutationFn: () => amApi.finish(org.id),
    onSuccess: async (saved) => {
      queryClient.setQueryData(amKeys.orgRecord(saved.id), saved);
      await invalidateOrg(saved.id);
    },
  });
  const canFinish = org.status === 'pending_am_setup';

  if (!canFinish) {
    return (
      <Alert color={org.status === 'active' ? 'green' : 'blue'} title="Setup finished" data-testid="setup-finished">
        <Group gap="xs">
          <Text size="sm">This org is</Text>
          <OrgStatusBadge status={org.status} />
        </Group>
        <Anchor component={Link} to={`/ops/clients/${org.id}`} size="sm">
          Open the org overview
        </Anchor>
      </Alert>
    );
  }

  const missing = missingOf(finish.error);
  return (
    <Card withBorder component="section" aria-label="Finish the setup">
      <Title order={2} size="h4" mb="sm">
        Finish the setup
      </Title>
      <Stack gap="sm">
        <Group>
          <Tooltip label="Coming soon">
            <Button disabled data-testid="send-invite">
              Send invite
            </Button>
          </Tooltip>
          <Text size="sm" c="dimmed" data-testid="send-invite-note">
            Sending the client invite is coming soon.
          </Text>
        </Group>
        <Group>
          <Button variant="light" color="green" onClick={() => finish.mutate()} loading={finish.isPending} disabled={!ready}>
            Finish without invite
          </Button>
          <Text size="sm" c="dimmed">
            {ready ? 'Activates the org now; no email is sent and the trial clock does not start.' : 'Complete the missing items first.'}
          </Text>
        </Group>
        {finish.error && (
          <Alert color="red" role="alert" title="Could not finish the setup">
            {finish.error.message}
            {missing.length > 0 && (
              <List size="sm" mt="xs">
                {missing.map((item) => (
                  <List.Item key={item}>{missingLabel(item)}</List.Item>
                ))}
              </List>
            )}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
