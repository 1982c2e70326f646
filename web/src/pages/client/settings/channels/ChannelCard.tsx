import { Alert, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { IntegrationDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useState, type ReactNode } from 'react';
import type { ChannelAudience, ChannelInfo, IntegrationFields } from '../../../../channels/channel-info';
import { channelKeys, channelsApi, type ChannelHealth } from '../../../../channels/channels.api';
import { BindingVerification } from './BindingVerification';
import { ChannelHealthTable } from './ChannelHealthTable';
import { IntegrationForm } from './IntegrationForm';
import { IntegrationSummary } from './IntegrationSummary';
import { WebhookUrlList } from './WebhookUrlList';

/** Who reads the channel cards below (the client's settings, or staff on an org's Channels tab). */
export const ChannelAudienceContext = createContext<ChannelAudience>('client');

/** The frame of one channel: its name and state, what it is, its settings beside its health. */
export function ChannelFrame({ info, health, badge, children }: { info: ChannelInfo; health: ChannelHealth | undefined; badge: ReactNode; children: ReactNode }) {
  const audience = useContext(ChannelAudienceContext);
  return (
    <Card withBorder component="section" aria-label={info.label} data-testid="channel-card" data-channel={info.channel}>
      <Group justify="space-between" mb={4} wrap="wrap" gap="xs">
        <Title order={2} size="h4">
          {info.label}
        </Title>
        {badge}
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        {info.description}
      </Text>
      {health?.delivery === 'failing' ? (
        <Alert color="red" mb="md" title="Replies are not being delivered" data-testid="delivery-failing">
          {audience === 'staff'
            ? `The last reply through this channel failed after all its attempts${health.lastError ? ` (${health.lastError})` : ''}. Its conversation is with an Expert; check the channel's settings and credentials.`
            : "The last reply through this channel could not be delivered, even after several tries. An Expert is looking after that conversation; please check this channel's settings and tokens."}
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
        <Stack gap="md">{children}</Stack>
        <Stack gap="xs">
          <Title order={3} size="h5">
            Health
          </Title>
          <ChannelHealthTable health={health} audience={audience} />
        </Stack>
      </SimpleGrid>
    </Card>
  );
}

function StateBadge({ integration }: { integration: IntegrationDto | undefined }) {
  const [color, label] = !integration
    ? ['gray', 'Not connected']
    : !integration.enabled
      ? ['yellow', 'Disabled']
      : integration.verificationStatus === 'pending'
        ? ['orange', 'Awaiting verification']
        : ['teal', 'Connected'];
  return (
    <Badge color={color} variant="light" data-testid="channel-state">
      {label}
    </Badge>
  );
}

function DisconnectConfirm({ orgId, info, integration, onCancel }: { orgId: string; info: ChannelInfo; integration: IntegrationDto; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const disconnect = useMutation({
    mutationFn: () => channelsApi.disconnect(orgId, integration.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: channelKeys.org(orgId) }),
  });
  return (
    <Alert color="orange" title={`Disconnect ${info.label}?`} data-testid="disconnect-confirm">
      Its settings and stored secrets are deleted; messages from this channel are no longer routed to your organization.
      <Group mt="sm">
        <Button color="red" onClick={() => disconnect.mutate()} loading={disconnect.isPending}>
          Disconnect
        </Button>
        <Button variant="default" onClick={onCancel} disabled={disconnect.isPending}>
          Keep it
        </Button>
      </Group>
      {disconnect.error && (
        <Text c="red" size="sm" mt="xs" role="alert">
          {disconnect.error.message}
        </Text>
      )}
    </Alert>
  );
}

type Mode = 'view' | 'form' | 'disconnect';

/** A channel with an integration: connect, edit or disconnect it; its webhook URLs; its health. */
export function ChannelCard({
  orgId,
  info,
  fields,
  integration,
  health,
  webhookUrls,
}: {
  orgId: string;
  info: ChannelInfo;
  fields: IntegrationFields;
  integration: IntegrationDto | undefined;
  health: ChannelHealth | undefined;
  webhookUrls: string[] | undefined;
}) {
  const [mode, setMode] = useState<Mode>('view');

  return (
    <ChannelFrame info={info} health={health} badge={<StateBadge integration={integration} />}>
      {mode === 'form' ? (
        <IntegrationForm orgId={orgId} channel={info.channel} fields={fields} integration={integration} onDone={() => setMode('view')} />
      ) : integration ? (
        <>
          <IntegrationSummary fields={fields} integration={integration} />
          <BindingVerification orgId={orgId} info={info} integration={integration} />
          {mode === 'disconnect' ? (
            <DisconnectConfirm orgId={orgId} info={info} integration={integration} onCancel={() => setMode('view')} />
          ) : (
            <Group>
              <Button variant="default" onClick={() => setMode('form')}>
                Edit
              </Button>
              <Button variant="light" color="red" onClick={() => setMode('disconnect')}>
                Disconnect
              </Button>
            </Group>
          )}
        </>
      ) : (
        <Group>
          <Button onClick={() => setMode('form')}>Connect</Button>
        </Group>
      )}
      <WebhookUrlList urls={webhookUrls} />
    </ChannelFrame>
  );
}
