import { Alert, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { adminKeys, membersApi } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { useCurrentUser } from '../../../../auth/current-user';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { InviteMemberForm } from './InviteMemberForm';
import { MembersTable } from './MembersTable';
import { canManageMembers } from './org-roles';

/** `/client/settings/team` (spec 4.6): the members of the org, invitations, roles and ownership. */
export function TeamPage() {
  const user = useCurrentUser();
  const [orgId, setOrgId] = useState(user.orgMemberships[0]?.orgId);
  const [actionError, setActionError] = useState<Error | null>(null);
  const { query: members, items } = useCursorList(adminKeys.members(orgId), (cursor, signal) => membersApi.list(orgId, cursor, signal), { enabled: Boolean(orgId) });
  const myRole = user.orgMemberships.find((m) => m.orgId === orgId)?.orgRole;

  if (!orgId) return <Text c="dimmed">You are not a member of an organization.</Text>;
  return (
    <Stack>
      {user.orgMemberships.length > 1 && (
        <Select
          label="Organization"
          data={user.orgMemberships.map((m) => ({ value: m.orgId, label: m.orgName ?? m.orgSlug ?? m.orgId }))}
          value={orgId}
          onChange={(v) => v && setOrgId(v)}
          allowDeselect={false}
          w={320}
        />
      )}
      {canManageMembers(myRole) && user.platformRole === 'org_admin' && <InviteMemberForm orgId={orgId} />}
      {actionError && (
        <Alert color="red" role="alert" withCloseButton onClose={() => setActionError(null)}>
          {actionError.message}
        </Alert>
      )}
      {members.isPending && <SectionLoader label="Loading the members" />}
      <QueryAlert title="Could not load the members" error={members.error} retry={() => void members.refetch()} />
      {members.data && <MembersTable orgId={orgId} members={items} myId={user.id} myRole={myRole} onError={setActionError} />}
      <LoadMore query={members} />
    </Stack>
  );
}
