import { Alert, Button, Group, List, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import {
  ADMIN_MESSAGES,
  ASSIGNABLE_PLATFORM_ROLES,
  EDITABLE_USER_STATUSES,
  draftChanges,
  isEditableStatus,
  promotesToSuperadmin,
  revokesSessions,
  saveBlocker,
  type AdminUserDetail,
  type UpdateUserInput,
  type UserEditDraft,
} from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { adminApi, adminKeys } from '../../../../admin/admin.api';
import { STATUS_LABELS } from '../../../../admin/UserStatusBadge';
import { roleLabel } from '../../../../auth/roles';
import { useCurrentUser } from '../../../../auth/current-user';
import { toast } from '../../../../layout/toast';
import { apiFieldErrors } from '../../../../ops/errors';

// Spec 4.7 rule 2: exactly these roles; the legacy client_admin / client_member are never offered.
const ROLE_OPTIONS = ASSIGNABLE_PLATFORM_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));
const STATUS_OPTIONS = EDITABLE_USER_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] ?? status }));

const BLOCKER_TEXT = {
  no_change: 'Change a field to save.',
  invalid_email: 'Enter a valid email address.',
  confirm_email: "Type the user's email to confirm the promotion.",
} as const;

/** What the confirmation step lists: the changes that end the user's sessions. */
function revokingReasons(changes: UpdateUserInput): string[] {
  const reasons: string[] = [];
  if (changes.email !== undefined) reasons.push(`the email changes to ${changes.email}`);
  if (changes.platformRole !== undefined) reasons.push(`the role changes to ${roleLabel(changes.platformRole)}`);
  if (changes.status === 'suspended' || changes.status === 'deactivated') reasons.push(`the account is ${changes.status}`);
  return reasons;
}

/**
 * The Edit form of `/ops/users/[id]` (spec 4.7): Save is disabled until a field changed and the
 * email is valid; a promotion to SuperAdmin needs the email typed; an edit that revokes the
 * user's sessions goes through a confirmation step first. Mounted per opening.
 */
export function EditUserModal({ user, opened, onClose }: { user: AdminUserDetail; opened: boolean; onClose: () => void }) {
  const current: UserEditDraft = { name: user.name, email: user.email, platformRole: user.platformRole, status: user.status };
  const [draft, setDraft] = useState<UserEditDraft>(current);
  const [typedEmail, setTypedEmail] = useState('');
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  // Spec 7.2: your own role and status are refused before anything is sent.
  const self = useCurrentUser().id === user.id;

  const changes = draftChanges(current, draft);
  const blocker = saveBlocker(current, draft, typedEmail);
  const statusEditable = isEditableStatus(user.status);

  const save = useMutation({
    mutationFn: () => adminApi.updateUser(user.id, changes),
    onSuccess: async (saved) => {
      queryClient.setQueryData(adminKeys.user(user.id), saved);
      await queryClient.invalidateQueries({ queryKey: adminKeys.users });
      toast.success(`${saved.name || saved.email} is saved.`, 'User updated');
      close();
    },
    onError: () => setConfirming(false),
  });
  const fieldErrors = apiFieldErrors(save.error);
  const formError = save.error && !fieldErrors.email ? (save.error as Error).message : null;

  // The parent mounts the modal per opening, so a new opening starts from the saved user.
  const close = onClose;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (blocker) return;
    if (revokesSessions(changes) && !confirming) setConfirming(true);
    else save.mutate();
  };

  return (
    <Modal opened={opened} onClose={close} title={confirming ? 'Sign this user out everywhere?' : `Edit ${user.name || user.email}`} size="lg">
      <form onSubmit={submit} noValidate aria-label="Edit user">
        {confirming ? (
          <Stack data-testid="revoke-confirmation">
            <Text>Saving ends every session of {user.email} because:</Text>
            <List>
              {revokingReasons(changes).map((reason) => (
                <List.Item key={reason}>{reason}</List.Item>
              ))}
            </List>
            <Text size="sm" c="dimmed">
              They will have to sign in again.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirming(false)}>
                Back
              </Button>
              <Button type="submit" color="red" loading={save.isPending}>
                Revoke sessions and save
              </Button>
            </Group>
          </Stack>
        ) : (
          <Stack>
            {formError && (
              <Alert color="red" role="alert" title="Could not save">
                {formError}
              </Alert>
            )}
            <TextInput label="Name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })} description="An empty name clears it." />
            <TextInput
              label="Email"
              type="email"
              value={draft.email}
              onChange={(e) => {
                setDraft({ ...draft, email: e.currentTarget.value });
                save.reset();
              }}
              error={fieldErrors.email ?? (blocker === 'invalid_email' ? BLOCKER_TEXT.invalid_email : undefined)}
            />
            <Select
              label="Role"
              data={ROLE_OPTIONS}
              value={ROLE_OPTIONS.some((o) => o.value === draft.platformRole) ? draft.platformRole : null}
              placeholder={roleLabel(user.platformRole)}
              onChange={(value) => value && setDraft({ ...draft, platformRole: value as UserEditDraft['platformRole'] })}
              allowDeselect={false}
              disabled={self}
              description={self ? ADMIN_MESSAGES.ownRole : undefined}
            />
            {promotesToSuperadmin(current, draft) && (
              <TextInput label={`Type ${user.email} to promote this user to SuperAdmin`} value={typedEmail} onChange={(e) => setTypedEmail(e.currentTarget.value)} data-testid="confirm-email" />
            )}
            {statusEditable ? (
              <Select
                label="Status"
                data={STATUS_OPTIONS}
                value={draft.status}
                onChange={(value) => value && setDraft({ ...draft, status: value })}
                allowDeselect={false}
                disabled={self}
                description={self ? ADMIN_MESSAGES.ownStatus : undefined}
              />
            ) : (
              <TextInput label="Status" value={user.status} readOnly description="This status is shown as it is and cannot be edited here." />
            )}
            <Group justify="space-between">
              <Text size="sm" c="dimmed" data-testid="save-hint">
                {blocker ? BLOCKER_TEXT[blocker] : revokesSessions(changes) ? 'Saving will revoke this user’s sessions.' : ' '}
              </Text>
              <Group>
                <Button variant="default" onClick={close}>
                  Cancel
                </Button>
                <Button type="submit" disabled={blocker !== null} loading={save.isPending}>
                  Save
                </Button>
              </Group>
            </Group>
          </Stack>
        )}
      </form>
    </Modal>
  );
}
