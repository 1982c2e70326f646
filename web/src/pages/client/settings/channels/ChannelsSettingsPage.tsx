import { Alert, Group, Stack, Text } from '@mantine/core';
import type { OrgMembership, OrgRole } from '@contracts';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../../../api/client';
import { useCurrentUser } from '../../../../auth/current-user';
import { CHANNELS, type ChannelAudience } from '../../../../channels/channel-info';
import { channelKeys, channelsApi } from '../../../../channels/channels.api';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { ChannelAudienceContext, ChannelCard } from './ChannelCard';
import { EmailChannelCard } from './EmailChannelCard';

/** How often the health of the channels is read again while the page is open. */
export const HEALTH_REFRESH_MS = 10_000;
const MANAGING_ROLES: readonly OrgRole[] = ['owner', 'admin'];

function ReadOnlyNotice({ membership }: { membership: OrgMembership | undefined }) {
  const org = membership?.orgName ?? 'your organization';
  return (
    <Alert color="blue" title="Only owners and admins manage channels" data-testid="channels-read-only">
      {membership
        ? `The channels of ${org} are connected and managed by its owners and admins. Ask one of them to connect a channel or to change its settings.`
        : 'You are not a member of an organization.'}
    </Alert>
  );
}

/** The channels of one org: the client's settings page, and the Channels tab of an org for staff (`audience="staff"`: precise terms). */
export function ChannelList({ orgId, audience = 'client' }: { orgId: string; audience?: ChannelAudience }) {
  const integrations = useQuery({
    queryKey: channelKeys.integrations(orgId),
    queryFn: ({ signal }) => channelsApi.integrations(orgId, signal),
    // A binding verified by a message through its channel shows up without a reload.
    refetchInterval: (query) => (query.state.data?.some((i) => i.verificationStatus === 'pending') ? HEALTH_REFRESH_MS : false),
  });
  const status = useQuery({
    queryKey: channelKeys.status(orgId),
    queryFn: ({ signal }) => channelsApi.status(orgId, signal),
    refetchInterval: HEALTH_REFRESH_MS,
  });
  const urls = useQuery({ queryKey: channelKeys.webhookUrls(orgId), queryFn: ({ signal }) => channelsApi.webhookUrls(orgId, signal), staleTime: Infinity });

  const forbidden = [integrations.error, status.error, urls.error].some((e) => e instanceof ApiError && e.statusCode === 403);
  if (forbidden) {
    return (
      <Alert color="red" role="alert" title="Not allowed" data-testid="channels-forbidden">
        Your role in this organization may not view or manage its channels.
      </Alert>
    );
  }
  if (integrations.isPending) return <SectionLoader label="Loading the channels" />;
  if (integrations.error) return <QueryAlert title="Could not load the channels" error={integrations.error} retry={() => void integrations.refetch()} />;

  return (
    <ChannelAudienceContext.Provider value={audience}>
      <Stack gap="md">
        <QueryAlert title="Could not load the channel health" error={status.error} retry={() => void status.refetch()} />
        <QueryAlert title="Could not load the addresses to paste into your apps" error={urls.error} retry={() => void urls.refetch()} />
        <Group justify="space-between" wrap="wrap">
          <Text c="dimmed" size="sm">
            Connect the channels your team uses; messages arriving there reach your Specialist. Tokens and passwords are stored encrypted and never shown again.
          </Text>
          <Text c="dimmed" size="xs" data-testid="health-updated-at">
            {status.dataUpdatedAt > 0 ? `Health updated ${new Date(status.dataUpdatedAt).toLocaleTimeString()}` : ''}
          </Text>
        </Group>
        {CHANNELS.map((info) => {
          const health = status.data?.find((h) => h.channel === info.channel);
          return info.fields ? (
            <ChannelCard
              key={info.channel}
              orgId={orgId}
              info={info}
              fields={info.fields}
              integration={integrations.data.find((i) => i.channel === info.channel)}
              health={health}
              webhookUrls={urls.data?.[info.channel]}
            />
          ) : (
            <EmailChannelCard key={info.channel} orgId={orgId} info={info} health={health} />
          );
        })}
      </Stack>
    </ChannelAudienceContext.Provider>
  );
}

/** `/client/settings/channels`: the org's channel integrations, webhook URLs and health (spec 4.1, 4.6). */
export function ChannelsSettingsPage() {
  const user = useCurrentUser();
  // The first membership's org, as elsewhere in the client portal.
  const membership = user.orgMemberships[0];
  const canManage = membership !== undefined && MANAGING_ROLES.includes(membership.orgRole);
  return canManage ? <ChannelList orgId={membership.orgId} /> : <ReadOnlyNotice membership={membership} />;
}
