import { INDUSTRIES, typedSlug } from '@contracts';
import { Button, Group, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import type { FormEvent } from 'react';
import type { FieldErrors } from '../../ops/errors';
import type { OnboardingView } from '../../onboarding/onboarding.api';
import type { OnboardingValues } from './onboarding-form';

const industryLabel = (value: string): string => INDUSTRIES.find((i) => i.value === value)?.label ?? value;

/** What the account manager entered and the client cannot change here. */
function CompanyDetails({ org }: { org: OnboardingView['org'] }) {
  const rows: Array<[string, string]> = [
    ['Industry', industryLabel(org.industry)],
    ['Corporate domains', org.corporateDomains.join(', ')],
    ['Website', org.website],
    ['Timezone', org.timezone],
  ];
  return (
    <div>
      <Table variant="vertical" withRowBorders={false} data-testid="company-details">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={180}>{label}</Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        Something else to change? Your account manager can update it.
      </Text>
    </div>
  );
}

/** Workspace Setup: confirm the company's legal name and the subdomain (spec 2.1). */
export function WorkspaceStep({
  view,
  values,
  errors,
  onChange,
  onContinue,
}: {
  view: OnboardingView;
  values: OnboardingValues;
  errors: FieldErrors;
  onChange: (patch: Partial<OnboardingValues>) => void;
  onContinue: () => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onContinue();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Confirm your company">
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label="Company legal name"
            required
            autoComplete="organization"
            value={values.legalName}
            onChange={(event) => onChange({ legalName: event.currentTarget.value })}
            error={errors.legalName}
          />
          <TextInput
            label="Subdomain"
            description="Lowercase letters, digits and inner hyphens; fixed once you confirm"
            required
            autoComplete="off"
            spellCheck={false}
            value={values.slug}
            onChange={(event) => onChange({ slug: typedSlug(event.currentTarget.value) })}
            error={errors.slug}
          />
        </SimpleGrid>
        <CompanyDetails org={view.org} />
        <Group justify="flex-end">
          <Button type="submit">Continue</Button>
        </Group>
      </Stack>
    </form>
  );
}
