import type { OrgDto } from '@contracts';
import { Alert, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { amApi, amKeys } from '../../../../ops/am.api';
import { OrgStatusBadge } from '../../../../ops/OrgStatusBadge';
import { useInvalidateOrg } from '../../../../ops/queries';
import { SetupActionError } from './SetupActionError';

/** Finish without invite (only before an invite is sent): the org becomes active at once. */
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

  return (
    <Card withBorder component="section" aria-label="Finish without invite">
      <Title order={2} size="h4" mb="sm">
        Or finish without invite
      </Title>
      <Stack gap="sm">
        <Group>
          <Button variant="light" color="green" onClick={() => finish.mutate()} loading={finish.isPending} disabled={!ready}>
            Finish without invite
          </Button>
          <Text size="sm" c="dimmed">
            {ready ? 'Activates the org now; no email is sent and the trial clock does not start.' : 'Complete the missing items first.'}
          </Text>
        </Group>
        <SetupActionError title="Could not finish the setup" error={finish.error} message={finish.error?.message ?? null} />
      </Stack>
    </Card>
  );
}

/** Step 4 of an org past its setup: where it stands, and the way to its overview. */
export function SetupFinished({ org }: { org: OrgDto }) {
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
