import { Badge, List, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ChannelInfo } from '../../../../channels/channel-info';
import { channelKeys, channelsApi, type ChannelHealth } from '../../../../channels/channels.api';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { ChannelFrame } from './ChannelCard';

/** Email needs no integration: mail to a Specialist's workspace address is received (spec 2.3.1). */
export function EmailChannelCard({ orgId, info, health }: { orgId: string; info: ChannelInfo; health: ChannelHealth | undefined }) {
  const specialists = useQuery({
    queryKey: channelKeys.specialists(orgId),
    queryFn: ({ signal }) => channelsApi.specialists(orgId, signal),
    staleTime: 5 * 60_000,
  });

  return (
    <ChannelFrame
      info={info}
      health={health}
      badge={
        <Badge color="teal" variant="light" data-testid="channel-state">
          Always on
        </Badge>
      }
    >
      <Text size="sm">Write to, or forward mail to, the workspace address of one of your Specialists:</Text>
      {specialists.isPending && <SectionLoader label="Loading the workspace addresses" />}
      <QueryAlert title="Could not load the workspace addresses" error={specialists.error} retry={() => void specialists.refetch()} />
      {specialists.data && specialists.data.length === 0 && <Text c="dimmed">No Specialist is assigned to your organization yet.</Text>}
      {specialists.data && specialists.data.length > 0 && (
        <List spacing={4} data-testid="workspace-addresses">
          {specialists.data.map((s) => (
            <List.Item key={s.assignmentId}>
              {s.name}
              {s.isPrimary ? ' (primary)' : ''}: <code data-testid="workspace-address">{s.email_alias}</code>
            </List.Item>
          ))}
        </List>
      )}
    </ChannelFrame>
  );
}
