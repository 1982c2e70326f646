import { Badge, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { BREAKER_LABELS } from '../../../../channels/channel-info';
import type { ChannelHealth } from '../../../../channels/channels.api';
import { formatDateTime } from '../../../../ops/format';

function Row({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={200}>{label}</Table.Th>
      <Table.Td data-testid={testId}>{children}</Table.Td>
    </Table.Tr>
  );
}

/** A channel's health (`GET /orgs/:orgId/channels/status`); counts cover the last 24 hours. */
export function ChannelHealthTable({ health }: { health: ChannelHealth | undefined }) {
  if (!health) return <Text c="dimmed">No health data yet.</Text>;
  const breaker = BREAKER_LABELS[health.breaker];
  return (
    <Table variant="vertical" withRowBorders={false} data-testid="channel-health" data-connected={health.connected} data-breaker={health.breaker}>
      <Table.Tbody>
        <Row label="Connected" testId="health-connected">
          <Badge variant="light" color={health.connected ? 'teal' : 'gray'}>
            {health.connected ? 'Connected' : 'Not connected'}
          </Badge>
        </Row>
        <Row label="Last inbound" testId="health-last-inbound">
          {formatDateTime(health.lastInboundAt)}
        </Row>
        <Row label="Last outbound" testId="health-last-outbound">
          {formatDateTime(health.lastOutboundAt)}
        </Row>
        <Row label="Outbound breaker" testId="health-breaker">
          <Badge variant="light" color={breaker.color}>
            {breaker.label}
          </Badge>
        </Row>
        <Row label="Failed sends (24 h)" testId="health-recent-failures">
          <Text span c={health.recentFailures > 0 ? 'red' : undefined}>
            {health.recentFailures}
          </Text>
        </Row>
        <Row label="Quarantined (24 h)" testId="health-recent-quarantined">
          <Text span c={health.recentQuarantined > 0 ? 'orange' : undefined}>
            {health.recentQuarantined}
          </Text>
        </Row>
        <Row label="Last error" testId="health-last-error">
          {health.lastError ? (
            <Text span size="sm" c="red" style={{ wordBreak: 'break-word' }}>
              {health.lastError}
            </Text>
          ) : (
            '—'
          )}
        </Row>
      </Table.Tbody>
    </Table>
  );
}
