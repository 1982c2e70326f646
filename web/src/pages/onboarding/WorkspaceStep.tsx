import { INDUSTRIES, type OrgDto } from '@contracts';
import { Button, Group, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { FieldErrors } from '../../ops/errors';
import type { OnboardingView } from '../../onboarding/onboarding.api';
import { LogoField } from '../../orgs/LogoField';
import { useOrgRecord } from '../../orgs/logo.api';
import type { OnboardingValues } from './onboarding-form';
import { SubdomainField } from './SubdomainField';

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

/** The company's logo (spec 2.1): the invited admin is the org's owner already, so it is uploaded at once. */
function WorkspaceLogo({ orgId, legalName }: { orgId: string; legalName: string }) {
  const org = useOrgRecord(orgId);
  const [saved, setSaved] = useState<OrgDto | null>(null);
  const logoUrl = saved ? saved.logoUrl : (org.data?.logoUrl ?? null);
  if (!org.data && !saved) return null;
  return <LogoField orgId={orgId} orgName={legalName} logoUrl={logoUrl} onSaved={setSaved} />;
}

/** Workspace Setup: confirm the company's legal name and the subdomain (spec 2.1), and set its logo. */
export function WorkspaceStep({
  token,
  view,
  orgId,
  values,
  errors,
  onChange,
  onContinue,
}: {
  token: string;
  view: OnboardingView;
  /** The org of the invite, from the signed-in admin's memberships (undefined: no logo field). */
  orgId: string | undefined;
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
          <SubdomainField token={token} value={values.slug} onChange={(slug) => onChange({ slug })} error={errors.slug} />
        </SimpleGrid>
        {orgId && <WorkspaceLogo orgId={orgId} legalName={values.legalName || view.org.legalName} />}
        <CompanyDetails org={view.org} />
        <Group justify="flex-end">
          <Button type="submit">Continue</Button>
        </Group>
      </Stack>
    </form>
  );
}
