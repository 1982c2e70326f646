import { Alert, Button, Card, Group, Select, Stack, TextInput, Title } from '@mantine/core';
import { GRANTABLE_ORG_ROLES, type OrgRole } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { adminKeys, membersApi } from '../../../../admin/admin.api';
import { apiFieldErrors } from '../../../../ops/errors';
import { ORG_ROLE_LABELS } from './org-roles';

const ROLE_OPTIONS = GRANTABLE_ORG_ROLES.map((role) => ({ value: role, label: ORG_ROLE_LABELS[role] }));

/** Invite someone with a role up to Admin (spec 4.6): a new address gets a mail and signs in with an emailed code; someone who already has an account gets an invitation to accept. */
export function InviteMemberForm({ orgId }: { orgId: string }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [orgRole, setOrgRole] = useState<OrgRole>('member');
  const invite = useMutation({
    mutationFn: () => membersApi.invite({ email, name: name.trim() || undefined, orgRole, orgId }),
    onSuccess: async () => {
      setEmail('');
      setName('');
      await queryClient.invalidateQueries({ queryKey: adminKeys.members(orgId) });
    },
  });
  const fieldErrors = apiFieldErrors(invite.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    invite.mutate();
  };

  return (
    <Card withBorder>
      <form onSubmit={submit} noValidate aria-label="Invite a member">
        <Stack>
          <Title order={2} size="h4">
            Invite a member
          </Title>
          {invite.error && !fieldErrors.email && (
            <Alert color="red" role="alert">
              {invite.error.message}
            </Alert>
          )}
          {invite.isSuccess && (
            <Alert color="green" role="status">
              Invitation sent to {invite.data.email}.
            </Alert>
          )}
          <Group align="flex-start" grow wrap="wrap" preventGrowOverflow={false}>
            <TextInput label="Email" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={fieldErrors.email} />
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <Select label="Role" data={ROLE_OPTIONS} value={orgRole} onChange={(v) => v && setOrgRole(v as OrgRole)} allowDeselect={false} />
          </Group>
          <Group justify="flex-end">
            <Button type="submit" disabled={!email.trim()} loading={invite.isPending}>
              Send invitation
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
