import { Badge, Button, Group, Select, Table, Text, VisuallyHidden } from '@mantine/core';
import { GRANTABLE_ORG_ROLES, type Member, type OrgRole } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { adminKeys, membersApi } from '../../../../admin/admin.api';
import { ConfirmDialog } from '../../../../layout/ConfirmDialog';
import { toast } from '../../../../layout/toast';
import { ORG_ROLE_LABELS, canManageMembers } from './org-roles';

const ROLE_OPTIONS = GRANTABLE_ORG_ROLES.map((role) => ({ value: role, label: ORG_ROLE_LABELS[role] }));

type Pending = { kind: 'remove' | 'transfer'; member: Member } | null;

/**
 * The members with their org roles. An admin or owner changes roles up to Admin and removes
 * members; an owner's row is left to owners; the owner can hand ownership to someone else.
 */
export function MembersTable({ orgId, members, myId, myRole, onError }: { orgId: string; members: Member[]; myId: string; myRole: OrgRole | undefined; onError: (e: Error | null) => void }) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Pending>(null);
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: adminKeys.members(orgId) }), queryClient.invalidateQueries({ queryKey: ['auth', 'me'] })]);
  const handlers = (done: string) => ({
    onSuccess: async () => {
      onError(null);
      setPending(null);
      toast.success(done);
      await refresh();
    },
    onError: (e: Error) => {
      setPending(null);
      onError(e);
    },
  });
  const setRole = useMutation({ mutationFn: (v: { userId: string; orgRole: OrgRole }) => membersApi.setRole(v.userId, v.orgRole, orgId), ...handlers('The role is changed.') });
  const remove = useMutation({ mutationFn: (userId: string) => membersApi.remove(orgId, userId), ...handlers('The member is removed.') });
  const transfer = useMutation({ mutationFn: (userId: string) => membersApi.transferOwnership(orgId, userId), ...handlers('Ownership is transferred.') });
  const manage = canManageMembers(myRole);
  const isOwner = myRole === 'owner';

  return (
    <>
      <div>
        <Table data-testid="members-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map((m) => {
              const ownerRow = m.orgRole === 'owner';
              const editable = manage && !ownerRow;
              return (
                <Table.Tr key={m.userId} data-testid="member-row" data-email={m.email}>
                  <Table.Td>
                    {m.name || '—'}{' '}
                    {m.userId === myId && (
                      <Badge size="xs" variant="light">
                        you
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{m.email}</Table.Td>
                  <Table.Td>
                    {editable ? (
                      <Select
                        aria-label={`Role of ${m.email}`}
                        data={ROLE_OPTIONS}
                        value={m.orgRole}
                        onChange={(v) => v && v !== m.orgRole && setRole.mutate({ userId: m.userId, orgRole: v as OrgRole })}
                        allowDeselect={false}
                        w={140}
                        size="xs"
                      />
                    ) : (
                      <Badge variant={ownerRow ? 'filled' : 'light'}>{ORG_ROLE_LABELS[m.orgRole]}</Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end">
                      {isOwner && !ownerRow && (
                        <Button size="xs" variant="default" onClick={() => setPending({ kind: 'transfer', member: m })}>
                          Make owner
                        </Button>
                      )}
                      {editable && (
                        <Button size="xs" variant="subtle" color="red" onClick={() => setPending({ kind: 'remove', member: m })}>
                          Remove
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </div>
      {pending && (
        <ConfirmDialog
          opened
          title={pending.kind === 'transfer' ? 'Transfer ownership' : 'Remove member'}
          confirmLabel={pending.kind === 'remove' ? 'Remove' : 'Transfer ownership'}
          color={pending.kind === 'remove' ? 'red' : 'blue'}
          loading={remove.isPending || transfer.isPending}
          error={pending.kind === 'remove' ? remove.error : transfer.error}
          onConfirm={() => (pending.kind === 'remove' ? remove.mutate(pending.member.userId) : transfer.mutate(pending.member.userId))}
          onCancel={() => setPending(null)}
        >
          <Text>{pending.kind === 'transfer' ? `${pending.member.email} becomes the owner; you stay on as an admin.` : `${pending.member.email} loses access to this organization.`}</Text>
        </ConfirmDialog>
      )}
    </>
  );
}
