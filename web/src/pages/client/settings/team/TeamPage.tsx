import { Alert, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { adminKeys, membersApi } from '../../../../admin/admin.api';
import { LoadMore, useCursorList } from '../../../../admin/paging';
import { useCurrentUser } from '../../../../auth/current-user';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { orgRecordKey, useOrgRecord } from '../../../../orgs/logo.api';
import { LogoField } from '../../../../orgs/LogoField';
import { InviteMemberForm } from './InviteMemberForm';
import { MembersTable } from './MembersTable';
import { canManageMembers } from './org-roles';

/** The org's logo (spec 2.1), for its owners and admins: shown in every member's header. */
function OrgLogoSection({ orgId }: { orgId: string }) {
  const queryClient = useQueryClient();
  const org = useOrgRecord(orgId);
  if (!org.data) return <QueryAlert title="Could not load the organization" error={org.error} retry={() => void org.refetch()} />;
  return (
    <Paper withBorder p="md" aria-label="Organization logo" component="section">
      <Title order={2} size="h4" mb="xs">
        {org.data.legalName}
      </Title>
      <LogoField orgId={orgId} orgName={org.data.legalName} logoUrl={org.data.logoUrl} onSaved={(saved) => queryClient.setQueryData(orgRecordKey(orgId), saved)} />
    </Paper>
  );
}

/** `/client/settings/team` (spec 4.6): the org's logo, the members of the org, invitations, roles and ownership. */
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
          maw="100%"
        />
      )}
      {canManageMembers(myRole) && <OrgLogoSection orgId={orgId} />}
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
