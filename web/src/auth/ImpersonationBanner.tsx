import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { useCurrentUser } from './current-user';
import { useStopImpersonation } from './impersonation';

/** Shown on every page while a SuperAdmin acts as another user (spec 5.8). */
export function ImpersonationBanner() {
  const user = useCurrentUser();
  const stop = useStopImpersonation();
  const [stopping, setStopping] = useState(false);
  if (!user.impersonatorId) return null;
  return (
    <Alert color="orange" variant="filled" radius={0} py={6} data-testid="impersonation-banner" role="status">
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">
          You are acting as <strong>{user.name || user.email}</strong> ({user.email}). Every change you make is audited with your own id.
        </Text>
        <Button
          size="xs"
          variant="white"
          color="orange"
          loading={stopping}
          onClick={() => {
            setStopping(true);
            void stop(user.id).finally(() => setStopping(false));
          }}
        >
          Stop impersonating
        </Button>
      </Group>
    </Alert>
  );
}
