import { Anchor, Badge, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import type { Phase0Status } from '@contracts';
import { Link } from 'react-router';
import { setupPath } from '../steps';
import { FIX_ROUTE, missingLabel } from './gate';

function Indicator({ label, on, testId }: { label: string; on: boolean; testId: string }) {
  return (
    <Group gap="xs" data-testid={testId} data-value={on}>
      <Badge variant="light" color={on ? 'green' : 'gray'}>
        {on ? 'Yes' : 'No'}
      </Badge>
      <Text size="sm">{label}</Text>
    </Group>
  );
}

/** The Phase 0 gate: what finishing or inviting needs, and the informational indicators. */
export function Phase0StatusCard({ orgId, status }: { orgId: string; status: Phase0Status }) {
  return (
    <Card withBorder component="section" aria-label="Setup checks" data-testid="phase0-status" data-ready={status.ready}>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Setup checks
        </Title>
        <Badge color={status.ready ? 'green' : 'red'} variant="filled" data-testid="phase0-ready">
          {status.ready ? 'Ready' : 'Not ready'}
        </Badge>
      </Group>
      <Stack gap="sm">
        {status.missing.length > 0 ? (
          <div>
            <Text size="sm" fw={500}>
              Missing before the setup can finish:
            </Text>
            <List size="sm" data-testid="phase0-missing">
              {status.missing.map((item) => (
                <List.Item key={item}>{missingLabel(item)}</List.Item>
              ))}
            </List>
            <Anchor component={Link} to={setupPath(orgId, FIX_ROUTE)} size="sm">
              Complete the company info
            </Anchor>
          </div>
        ) : (
          <Text size="sm">Everything the gate requires is in place.</Text>
        )}
        <Text size="sm" fw={500} mt="xs">
          For information (not required):
        </Text>
        <Indicator label="A Specialist is assigned" on={status.specialistAssigned} testId="phase0-specialist-assigned" />
        <Indicator label="An Expert covers the org" on={status.expertMapped} testId="phase0-expert-mapped" />
      </Stack>
    </Card>
  );
}
