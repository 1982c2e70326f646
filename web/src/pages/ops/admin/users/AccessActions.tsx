import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { ADMIN_MESSAGES, ASSIGNABLE_PLATFORM_ROLES, type AdminUserDetail, type PlatformRole } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { useCurrentUser } from '../../../../auth/current-user';
import { roleLabel } from '../../../../auth/roles';
import { ConfirmDialog } from '../../../../layout/ConfirmDialog';
import { toast } from '../../../../layout/toast';

const ROLE_OPTIONS = ASSIGNABLE_PLATFORM_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));

/** A button that may be refused before anything opens: disabled, with the reason in a tooltip and under it. */
function GuardedButton({ refusal, onClick, children, color }: { refusal: string | null; onClick: () => void; children: ReactNode; color?: string }) {
  if (!refusal) {
    return (
      <Button variant="default" color={color} onClick={onClick}>
        {children}
      </Button>
    );
  }
  return (
    <Tooltip label={refusal} withArrow multiline w={240}>
      <Button variant="default" data-disabled aria-disabled="true" aria-description={refusal} onClick={(event) => event.preventDefault()}>
        {children}
      </Button>
    </Tooltip>
  );
}

/**
 * Suspend or reactivate, and change the role (spec 4.7): each confirmed in a dialog first. The
 * SuperAdmin's own account is refused before any dialog opens, with the API's own words (spec 7.2).
 */
export function AccessActions({ user }: { user: AdminUserDetail }) {
  const me = useCurrentUser();
  const self = me.id === user.id;
  const [open, setOpen] = useState<'status' | 'role' | null>(null);
  const suspended = user.status === 'suspended' || user.status === 'deactivated';

  return (
    <Stack gap={4} data-testid="user-access">
      <Group gap="sm">
        <GuardedButton refusal={self && !suspended ? ADMIN_MESSAGES.ownStatus : null} onClick={() => setOpen('status')} color={suspended ? undefined : 'red'}>
          {suspended ? 'Reactivate' : 'Suspend'}
        </GuardedButton>
        <GuardedButton refusal={self ? ADMIN_MESSAGES.ownRole : null} onClick={() => setOpen('role')}>
          Change role
        </GuardedButton>
      </Group>
      {self && (
        <Text size="xs" c="dimmed" data-testid="self-refusal">
          This is your own account: {ADMIN_MESSAGES.ownStatus.toLowerCase()} or change your own role.
        </Text>
      )}
      {open === 'status' && <StatusDialog user={user} suspended={suspended} onClose={() => setOpen(null)} />}
      {open === 'role' && <RoleDialog user={user} onClose={() => setOpen(null)} />}
    </Stack>
  );
}

function useSaved(user: AdminUserDetail, onClose: () => void) {
  const queryClient = useQueryClient();
  return async (saved: AdminUserDetail, message: string) => {
    queryClient.setQueryData(adminKeys.user(user.id), saved);
    await queryClient.invalidateQueries({ queryKey: adminKeys.users });
    toast.success(message);
    onClose();
  };
}

function StatusDialog({ user, suspended, onClose }: { user: AdminUserDetail; suspended: boolean; onClose: () => void }) {
  const saved = useSaved(user, onClose);
  const who = user.name || user.email;
  const save = useMutation({
    mutationFn: () => adminApi.updateUser(user.id, { status: suspended ? 'active' : 'suspended' }),
    onSuccess: (u) => saved(u, suspended ? `${who} can sign in again.` : `${who} is suspended and signed out everywhere.`),
  });
  return (
    <ConfirmDialog
      opened
      title={suspended ? `Reactivate ${who}?` : `Suspend ${who}?`}
      confirmLabel={suspended ? 'Reactivate' : 'Suspend'}
      color={suspended ? 'blue' : 'red'}
      loading={save.isPending}
      error={save.error}
      onConfirm={() => save.mutate()}
      onCancel={onClose}
    >
      <Text size="sm">{suspended ? `${user.email} will be able to sign in again.` : `${user.email} is signed out everywhere and cannot sign in until a SuperAdmin reactivates the account.`}</Text>
    </ConfirmDialog>
  );
}

function RoleDialog({ user, onClose }: { user: AdminUserDetail; onClose: () => void }) {
  const saved = useSaved(user, onClose);
  const [role, setRole] = useState<PlatformRole | null>(null);
  const [typed, setTyped] = useState('');
  const who = user.name || user.email;
  const promotes = role === 'superadmin' && user.platformRole !== 'superadmin';
  const blocker = !role || role === user.platformRole ? 'Pick a different role.' : promotes && typed !== user.email ? `Type ${user.email} to confirm the promotion.` : null;
  const save = useMutation({
    mutationFn: () => adminApi.setRole(user.id, role as (typeof ASSIGNABLE_PLATFORM_ROLES)[number]),
    onSuccess: (u) => saved(u, `${who} is now ${roleLabel(u.platformRole)}.`),
  });
  return (
    <Modal opened onClose={onClose} title={`Change the role of ${who}`}>
      <Stack>
        <Text size="sm">
          Now: {roleLabel(user.platformRole)}. A new role signs {user.email} out everywhere.
        </Text>
        <Select label="New role" data={ROLE_OPTIONS.filter((o) => o.value !== user.platformRole)} value={role} onChange={(v) => setRole(v as PlatformRole | null)} allowDeselect={false} />
        {promotes && <TextInput label={`Type ${user.email} to make this user a SuperAdmin`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />}
        {save.error && (
          <Alert color="red" role="alert" title="Could not change the role">
            {save.error.message}
          </Alert>
        )}
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            {blocker ?? ' '}
          </Text>
          <Group>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button onClick={() => save.mutate()} disabled={blocker !== null} loading={save.isPending}>
              Change role
            </Button>
          </Group>
        </Group>
      </Stack>
    </Modal>
  );
}
