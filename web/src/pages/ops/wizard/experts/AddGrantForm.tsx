import { Alert, Button, Group, MultiSelect, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import type { OsaDto } from '@contracts';
import { CreateGrantSchema } from '@contracts';
import { useState, type FormEvent } from 'react';
import type { ExpertSummary } from '../../../../ops/am.api';
import { apiFieldErrors, unshownErrorMessage, zodFieldErrors, type FieldErrors } from '../../../../ops/errors';
import { useAddGrant } from './queries';

type Scope = 'org' | 'specialist';

/** A new grant: an Expert, org-wide or for some of the assigned Specialists (spec 2.4). */
export function AddGrantForm({ orgId, experts, assignments }: { orgId: string; experts: ExpertSummary[]; assignments: OsaDto[] }) {
  const [expertId, setExpertId] = useState<string | null>(null);
  const [scope, setScope] = useState<Scope>('org');
  const [specialistIds, setSpecialistIds] = useState<string[]>([]);
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const add = useAddGrant(orgId);
  const errors = { ...apiFieldErrors(add.error), ...clientErrors };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    add.reset();
    const body = { expertId: expertId ?? '', scope, ...(scope === 'specialist' ? { specialistIds } : {}) };
    const parsed = CreateGrantSchema.safeParse(body);
    const found = parsed.success ? {} : zodFieldErrors(parsed.error);
    if (!expertId) found.expertId = 'Pick an Expert';
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    add.mutate(body, {
      onSuccess: () => {
        setExpertId(null);
        setSpecialistIds([]);
      },
    });
  };

  const alert = unshownErrorMessage(add.error, errors, (field) => ['expertId', 'scope', 'specialistIds'].includes(field));

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a grant">
      <Stack gap="sm">
        <Group align="flex-start" grow>
          <Select
            label="Expert"
            placeholder="Pick an Expert"
            searchable
            data={experts.map((e) => ({ value: e.id, label: `${e.name} (${e.email})` }))}
            value={expertId}
            onChange={setExpertId}
            error={errors.expertId}
            nothingFoundMessage="No Experts"
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="grant-scope-label">
              Scope
            </Text>
            <SegmentedControl
              aria-labelledby="grant-scope-label"
              value={scope}
              onChange={(value) => setScope(value as Scope)}
              data={[
                { value: 'org', label: 'Whole org' },
                { value: 'specialist', label: 'Some Specialists' },
              ]}
            />
          </Stack>
        </Group>
        {scope === 'specialist' && (
          <MultiSelect
            label="Specialists"
            description={assignments.length === 0 ? 'No Specialist is assigned to this org yet' : 'Among the Specialists assigned to this org'}
            data={assignments.map((a) => ({ value: a.specialistId, label: a.specialist.name }))}
            value={specialistIds}
            onChange={setSpecialistIds}
            error={errors.specialistIds}
            disabled={assignments.length === 0}
          />
        )}
        {alert && (
          <Alert color="red" role="alert" title="Could not add the grant">
            {alert}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={add.isPending} variant="light">
            Add grant
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
