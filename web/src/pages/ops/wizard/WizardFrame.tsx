import type { OrgDto } from '@contracts';
import { Anchor, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Page } from '../../../layout/Page';
import { OrgStatusBadge } from '../../../ops/OrgStatusBadge';
import { OrgLogo } from '../../../orgs/OrgLogo';
import type { WizardRoute } from './steps';
import { WizardProgress } from './WizardProgress';

/** A wizard page: its title, the org it works on, the 3-step progress (none on the Specialist step). */
export function WizardFrame({ title, org, current, children }: { title: string; org?: OrgDto; current?: WizardRoute; children: ReactNode }) {
  return (
    <Page title={title}>
      {org && (
        <Group gap="sm" data-testid="wizard-org">
          <OrgLogo logoUrl={org.logoUrl} name={org.legalName} size={32} />
          <Text fw={600}>{org.legalName}</Text>
          <Text c="dimmed" size="sm">
            {org.slug}
          </Text>
          <OrgStatusBadge status={org.status} />
          <Anchor component={Link} to={`/ops/clients/${org.id}`} size="sm">
            Org overview
          </Anchor>
        </Group>
      )}
      {current && <WizardProgress current={current} orgId={org?.id} />}
      <Stack gap="lg">{children}</Stack>
    </Page>
  );
}
