import { Group, Text } from '@mantine/core';
import { useCurrentUser } from '../auth/current-user';
import { isClientRole } from '../auth/roles';
import { useOrgRecord } from './logo.api';
import { OrgLogo } from './OrgLogo';

/** In a client's header: their org's logo and name (nothing for staff, or while the org cannot be read). */
export function ClientOrgMark() {
  const user = useCurrentUser();
  const isClient = isClientRole(user.platformRole);
  const org = useOrgRecord(isClient ? user.orgMemberships[0]?.orgId : undefined);
  if (!org.data) return null;
  return (
    <Group gap="xs" wrap="nowrap" data-testid="client-org">
      <OrgLogo logoUrl={org.data.logoUrl} name={org.data.legalName} size={32} />
      <Text size="sm" fw={500} visibleFrom="sm" truncate maw={200}>
        {org.data.legalName}
      </Text>
    </Group>
  );
}
