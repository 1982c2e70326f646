import { Badge, Card, Checkbox, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { type AssignmentDraft, firstNameOf, type OsaDto, previewWorkspaceAlias, type SpecialistDto } from '@contracts';
import type { FieldErrors } from '../../../../ops/errors';
import { formatMoney } from '../../../../ops/format';

/** The override limits of spec 2.3 (the server refuses anything else). */
const MIN_RATE = 1;
const MAX_RATE = 99999;

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
  const config = specialist.monthly_rate_config;
  const catalogRate = config ? formatMoney(config.base_rate, config.currency) : null;
  const preview = workspaceDomain ? previewWorkspaceAlias(firstNameOf(specialist.name), orgSlug, workspaceDomain) : null;
  // Out of range is said at once, beside the field: the value is never changed behind the AM's back.
  const rateError =
    typeof current.rate === 'number' && (current.rate < MIN_RATE || current.rate > MAX_RATE) ? `Must be between ${MIN_RATE} and ${MAX_RATE.toLocaleString('en-US')}` : errors?.monthlyRate;

  return (
    <Card withBorder padding="sm" data-testid="specialist-option" data-specialist-slug={specialist.slug} aria-label={specialist.name}>
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
        <Checkbox
          label={specialist.name}
          description={specialist.skillTags.join(', ') || undefined}
          checked={current.selected}
          onChange={(event) => onChange({ ...current, selected: event.currentTarget.checked })}
        />
        <Group gap="xs" wrap="wrap">
          {assignment?.isPrimary && <Badge variant="light">Primary</Badge>}
          {assignment && !current.selected && (
            <Badge color="red" variant="light">
              Will be unassigned
            </Badge>
          )}
          <Text size="sm" c="dimmed">
            {catalogRate ? `Catalog ${catalogRate} / month` : 'No catalog rate: not billed without an override'}
          </Text>
        </Group>
      </Group>
      {current.selected && (
        <Stack gap="xs" mt="sm" pl="xl">
          <Group grow align="flex-start" wrap="wrap" preventGrowOverflow={false}>
            <NumberInput
              label="Monthly rate override"
              description={`Leave empty for the catalog rate; ${MIN_RATE} to ${MAX_RATE.toLocaleString('en-US')}`}
              placeholder={catalogRate ?? 'No catalog rate'}
              min={MIN_RATE}
              max={MAX_RATE}
              clampBehavior="none"
              allowNegative={false}
              value={current.rate}
              onChange={(value) => onChange({ ...current, rate: typeof value === 'number' ? value : value === '' ? '' : Number(value) })}
              error={rateError}
              style={{ minWidth: 200 }}
            />
            <TextInput
              label="Override reason"
              description="Required with an override"
              disabled={current.rate === ''}
              value={current.reason}
              onChange={(event) => onChange({ ...current, reason: event.currentTarget.value })}
              error={errors?.overrideReason}
              style={{ minWidth: 200 }}
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
