import { Badge, Card, Checkbox, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { firstNameOf, previewWorkspaceAlias, type OsaDto } from '@contracts';
import type { FieldErrors } from '../../../../ops/errors';
import { formatMoney } from '../../../../ops/format';
import type { SpecialistDto } from '../../../../ops/types';
import type { AssignmentDraft } from './assignment-draft';

/** One catalog Specialist on the Specialist step: pick it, override its rate, see its address. */
export function SpecialistRow({
  specialist,
  draft,
  assignment,
  orgSlug,
  workspaceDomain,
  errors,
  onChange,
}: {
  specialist: SpecialistDto;
  draft: AssignmentDraft | undefined;
  assignment: OsaDto | undefined;
  orgSlug: string;
  /** Undefined until the server has told it: the preview line stays hidden meanwhile. */
  workspaceDomain: string | undefined;
  errors: FieldErrors | undefined;
  onChange: (draft: AssignmentDraft) => void;
}) {
  const current = draft ?? { selected: false, rate: '', reason: '' };
  const catalogRate = formatMoney(specialist.monthly_rate_config.base_rate, specialist.monthly_rate_config.currency);
  const preview = workspaceDomain ? previewWorkspaceAlias(firstNameOf(specialist.name), orgSlug, workspaceDomain) : null;

  return (
    <Card withBorder padding="sm" data-testid="specialist-option" data-specialist-slug={specialist.slug} aria-label={specialist.name}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Checkbox
          label={specialist.name}
          description={specialist.skillTags.join(', ') || undefined}
          checked={current.selected}
          onChange={(event) => onChange({ ...current, selected: event.currentTarget.checked })}
        />
        <Group gap="xs" wrap="nowrap">
          {assignment?.isPrimary && <Badge variant="light">Primary</Badge>}
          {assignment && !current.selected && (
            <Badge color="red" variant="light">
              Will be unassigned
            </Badge>
          )}
          <Text size="sm" c="dimmed">
            Catalog {catalogRate} / month
          </Text>
        </Group>
      </Group>
      {current.selected && (
        <Stack gap="xs" mt="sm" pl="xl">
          <Group grow align="flex-start">
            <NumberInput
              label="Monthly rate override"
              description="Leave empty for the catalog rate"
              placeholder={catalogRate}
              min={1}
              max={99999}
              allowNegative={false}
              value={current.rate}
              onChange={(value) => onChange({ ...current, rate: typeof value === 'number' ? value : value === '' ? '' : Number(value) })}
              error={errors?.monthlyRate}
            />
            <TextInput
              label="Override reason"
              description="Required with an override"
              disabled={current.rate === ''}
              value={current.reason}
              onChange={(event) => onChange({ ...current, reason: event.currentTarget.value })}
              error={errors?.overrideReason}
            />
          </Group>
          {preview && (
            <Text size="sm" data-testid="alias-preview">
              Address preview: <code>{preview}</code>
            </Text>
          )}
          {assignment && (
            <Text size="sm" data-testid="stored-alias">
              Stored address: <code>{assignment.email_alias}</code>
            </Text>
          )}
        </Stack>
      )}
    </Card>
  );
}
