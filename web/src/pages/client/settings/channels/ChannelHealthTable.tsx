import { Badge, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { BREAKER_LABELS, DELIVERY_LABELS, clientDeliveryLabel, type ChannelAudience } from '../../../../channels/channel-info';
import type { ChannelHealth } from '../../../../channels/channels.api';
import { formatDateTime } from '../../../../ops/format';

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={180}>{label}</Table.Th>
      <Table.Td data-testid={testId}>{children}</Table.Td>
    </Table.Tr>
  );
}

function Count({ value, color }: { value: number; color: string }) {
  return (
    <Text span c={value > 0 ? color : undefined}>
      {value}
    </Text>
  );
}

/**
 * A channel's health (`GET /orgs/:orgId/channels/status`); counts cover the last 24 hours. Staff
 * see the delivery state, the circuit breaker and the last error as they are; a client sees one
 * delivery status in plain words.
 */
export function ChannelHealthTable({ health, audience }: { health: ChannelHealth | undefined; audience: ChannelAudience }) {
  if (!health) return <Text c="dimmed">No activity yet.</Text>;
  const staff = audience === 'staff';
  const delivery = staff ? DELIVERY_LABELS[health.delivery] : clientDeliveryLabel(health);
  const breaker = BREAKER_LABELS[health.breaker];
  return (
    <Table variant="vertical" withRowBorders={false} data-testid="channel-health" data-connected={health.connected} data-breaker={health.breaker} data-delivery={health.delivery}>
      <Table.Tbody>
        <Row label="Connected" testId="health-connected">
          <Badge variant="light" color={health.connected ? 'teal' : 'gray'}>
            {health.connected ? 'Connected' : 'Not connected'}
          </Badge>
        </Row>
        <Row label={staff ? 'Last inbound' : 'Last message received'} testId="health-last-inbound">
          {formatDateTime(health.lastInboundAt)}
        </Row>
        <Row label={staff ? 'Last outbound' : 'Last reply sent'} testId="health-last-outbound">
          {formatDateTime(health.lastOutboundAt)}
        </Row>
        <Row label="Delivery" testId="health-delivery">
          <Badge variant="light" color={delivery.color} tt="none">
            {delivery.label}
          </Badge>
        </Row>
        {staff && (
          <Row label="Outbound breaker" testId="health-breaker">
            <Badge variant="light" color={breaker.color}>
              {breaker.label}
            </Badge>
          </Row>
        )}
        <Row label={staff ? 'Failed sends (24 h)' : 'Replies not delivered (24 h)'} testId="health-recent-failures">
          <Count value={health.recentFailures} color="red" />
        </Row>
        <Row label={staff ? 'Quarantined (24 h)' : 'Messages held back (24 h)'} testId="health-recent-quarantined">
          <Count value={health.recentQuarantined} color="orange" />
        </Row>
        {staff && (
          <Row label="Last error" testId="health-last-error">
            {health.lastError ? (
              <Text span size="sm" c="red" style={{ wordBreak: 'break-word' }}>
                {health.lastError}
              </Text>
            ) : (
              '—'
            )}
          </Row>
        )}
      </Table.Tbody>
    </Table>
  );
}
