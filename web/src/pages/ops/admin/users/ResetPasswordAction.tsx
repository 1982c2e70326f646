import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { ADMIN_MESSAGES, type AdminUserDetail } from '@contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { adminApi } from '../../../../admin/admin.api';

/**
 * Reset password (spec 4.7 rule 5): offered for active and suspended users; the API sends codes
 * to active users only, so for a suspended one the button is disabled with the API's message.
 */
export function ResetPasswordAction({ user }: { user: AdminUserDetail }) {
  const [opened, setOpened] = useState(false);
  const reset = useMutation({ mutationFn: () => adminApi.sendPasswordReset(user.id) });
  if (user.status !== 'active' && user.status !== 'suspended') return null;
  const suspended = user.status === 'suspended';

  return (
    <>
      <Stack gap={2}>
        <Button variant="default" disabled={suspended} onClick={() => setOpened(true)}>
          Reset password
        </Button>
        {suspended && (
          <Text size="xs" c="dimmed">
            {ADMIN_MESSAGES.resetNonActive}
          </Text>
        )}
      </Stack>
      <Modal
        opened={opened}
        onClose={() => {
          setOpened(false);
          reset.reset();
        }}
        title="Reset password"
      >
        {reset.isSuccess ? (
          <Alert color="green" role="status" title="Reset code sent">
            {user.email} received a 6-digit code to choose a new password (valid 30 minutes). The code is never shown here.
          </Alert>
        ) : (
          <Stack>
            <Text>Mail a 6-digit reset code to {user.email}? You will not see the code.</Text>
            {reset.error && (
              <Alert color="red" role="alert" title="Could not send the code">
                {reset.error.message}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button onClick={() => reset.mutate()} loading={reset.isPending}>
                Send reset code
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
