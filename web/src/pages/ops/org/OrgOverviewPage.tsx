import { Anchor, Breadcrumbs, Button, Group, Tabs, Text } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router';
import { Page } from '../../../layout/Page';
import { isPendingStatus } from '../../../ops/org-status';
import { OrgStatusBadge } from '../../../ops/OrgStatusBadge';
import { QueryAlert, SectionLoader } from '../../../ops/QueryAlert';
import { useOrg } from '../../../ops/queries';
import { OrgLogo } from '../../../orgs/OrgLogo';
import { setupPath } from '../wizard/steps';
import { ChannelList } from '../../client/settings/channels/ChannelsSettingsPage';
import { CompanySummary } from './CompanySummary';
import { SpecialistsTab } from './SpecialistsTab';

const TABS = ['overview', 'specialists', 'channels'] as const;
type Tab = (typeof TABS)[number];

/** `/ops/clients/:id`: an org's overview; `?tab=specialists` and `?tab=channels` open those tabs. */
export function OrgOverviewPage() {
  const { id = '' } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const tab: Tab = (TABS as readonly string[]).includes(searchParams.get('tab') ?? '') ? (searchParams.get('tab') as Tab) : 'overview';
  const org = useOrg(id);

  return (
    <Page title={org.data?.legalName ?? 'Client'}>
      <Breadcrumbs>
        <Anchor component={Link} to="/ops/clients">
          Clients
        </Anchor>
        <Text>{org.data?.legalName ?? '…'}</Text>
      </Breadcrumbs>
      {org.isPending && <SectionLoader label="Loading the org" />}
      <QueryAlert title="Could not load the org" error={org.error} retry={() => void org.refetch()} />
      {org.data && (
        <>
          <Group justify="space-between">
            <Group gap="sm">
              <OrgLogo logoUrl={org.data.logoUrl} name={org.data.legalName} />
              <Text c="dimmed">{org.data.slug}</Text>
              <OrgStatusBadge status={org.data.status} />
            </Group>
            {isPendingStatus(org.data.status) && (
              <Button component={Link} to={setupPath(org.data.id, 'step-1')}>
                Continue setup
              </Button>
            )}
          </Group>
          <Tabs value={tab} onChange={(value) => setSearchParams(value && value !== 'overview' ? { tab: value } : {}, { replace: true })} keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="overview">Overview</Tabs.Tab>
              <Tabs.Tab value="specialists">Specialists</Tabs.Tab>
              <Tabs.Tab value="channels">Channels</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="overview" pt="md">
              <CompanySummary org={org.data} />
            </Tabs.Panel>
            <Tabs.Panel value="specialists" pt="md">
              <SpecialistsTab orgId={org.data.id} />
            </Tabs.Panel>
            <Tabs.Panel value="channels" pt="md">
              <ChannelList orgId={org.data.id} audience="staff" />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </Page>
  );
}
