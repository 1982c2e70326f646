import { Badge, Group, Table, Text } from '@mantine/core';
import type { IntegrationDto } from '@contracts';
import { secretLabel, type IntegrationFields } from '../../../../channels/channel-info';

function configText(value: unknown): string {
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : '—';
  return typeof value === 'string' && value !== '' ? value : '—';
}

/** What is stored for a connected channel; secrets by name only (their values are never returned). */
export function IntegrationSummary({ fields, integration }: { fields: IntegrationFields; integration: IntegrationDto }) {
  return (
    <Table variant="vertical" withRowBorders={false} data-testid="integration-summary">
      <Table.Tbody>
        {fields.externalId && (
          <Table.Tr>
            <Table.Th w={200}>{fields.externalId.label}</Table.Th>
            <Table.Td data-testid="integration-external-id">{integration.externalId ?? '—'}</Table.Td>
          </Table.Tr>
        )}
        {fields.config.map((field) => (
          <Table.Tr key={field.key}>
            <Table.Th w={200}>{field.label}</Table.Th>
            <Table.Td data-testid={`integration-config-${field.key}`}>{configText(integration.config[field.key])}</Table.Td>
          </Table.Tr>
        ))}
        {fields.secrets.length > 0 && (
          <Table.Tr>
            <Table.Th w={200}>Stored secrets</Table.Th>
            <Table.Td data-testid="integration-secrets">
              {integration.secretNames.length === 0 ? (
                <Text span c="dimmed">
                  None
                </Text>
              ) : (
                <Group gap={4}>
                  {integration.secretNames.map((name) => (
                    <Badge key={name} variant="outline" color="gray" tt="none" data-testid="secret-name" data-key={name}>
                      {secretLabel(fields, name)}
                    </Badge>
                  ))}
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
        )}
        <Table.Tr>
          <Table.Th w={200}>Verification</Table.Th>
          <Table.Td data-testid="integration-verification">
            {integration.verificationStatus === 'verified'
              ? `Verified${integration.verifiedAt ? ` on ${new Date(integration.verifiedAt).toLocaleDateString()}` : ''}`
              : 'Pending: messages are held until verified'}
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th w={200}>Enabled</Table.Th>
          <Table.Td data-testid="integration-enabled">{integration.enabled ? 'Yes' : 'No: inbound messages are not routed'}</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}
