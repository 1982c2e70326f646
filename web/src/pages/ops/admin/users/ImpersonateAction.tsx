import { Alert, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import type { AdminUserDetail } from '@contracts';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { adminApi } from '../../../../admin/admin.api';
import { useBeginImpersonation } from '../../../../auth/impersonation';

/** Impersonate (spec 4.7 rule 5, 5.8): every user except SuperAdmins, with a reason that is recorded. */
export function ImpersonateAction({ user }: { user: AdminUserDetail }) {
  const [opened, setOpened] = useState(false);
  const [reason, setReason] = useState('');
  const begin = useBeginImpersonation();
  const start = useMutation({
    mutationFn: async () => {
      const { token } = await adminApi.impersonate(user.id, reason.trim());
      await begin(token);
    },
  });
  if (user.platformRole === 'superadmin') return null;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (reason.trim()) start.mutate();
  };

  return (
    <>
      <Button variant="default" color="orange" onClick={() => setOpened(true)}>
        Impersonate
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={`Act as ${user.name || user.email}`}>
        <form onSubmit={submit} noValidate aria-label="Impersonate">
          <Stack>
            <Text size="sm">You will see the service as {user.email} for up to an hour. The reason and every change you make are audited with your id.</Text>
            {start.error && (
              <Alert color="red" role="alert" title="Could not impersonate">
                {start.error.message}
              </Alert>
            )}
            <Textarea label="Reason" required autosize minRows={2} maxLength={500} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button type="submit" color="orange" disabled={!reason.trim()} loading={start.isPending}>
                Start impersonating
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
