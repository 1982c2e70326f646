import { Badge, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import type { AuditItem } from '@contracts';
import { AuditSentence, actionLabel, auditDetails } from '../../../../admin/audit-text';
import { formatDateTime } from '../../../../ops/format';

/**
 * Audit rows (spec 2.10, 6.3) as people read them: when, a sentence naming who did what to whom
 * (with links), and the payload as labelled fields. Stacked entries, so they fit any width.
 */
export function AuditTable({ rows }: { rows: AuditItem[] }) {
  return (
    <Stack gap="xs" data-testid="audit-table" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
      {rows.map((row) => {
        const details = auditDetails(row);
        return (
          <Paper key={row.id} withBorder p="sm" component="li" data-testid="audit-row" data-action={row.action}>
            <Stack gap={6}>
              <Group justify="space-between" gap="xs">
                <Badge variant="light" color="gray" style={{ textTransform: 'none' }}>
                  {actionLabel(row.action)}
                </Badge>
                <Text size="xs" c="dimmed" component="time" dateTime={row.createdAt}>
                  {formatDateTime(row.createdAt)}
                </Text>
              </Group>
              <div data-testid="audit-sentence" style={{ overflowWrap: 'anywhere' }}>
                <AuditSentence row={row} />
              </div>
              {details.length > 0 && (
                <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing={2} component="dl" m={0} data-testid="audit-details">
                  {details.map((field, i) => (
                    <Group key={i} gap={6} wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
                      <Text size="xs" c="dimmed" component="dt" style={{ flexShrink: 0 }}>
                        {field.label}
                      </Text>
                      <Text size="xs" component="dd" m={0} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                        {field.value}
                      </Text>
                    </Group>
                  ))}
                </SimpleGrid>
              )}
            </Stack>
          </Paper>
        );
      })}
    </Stack>
  );
}
