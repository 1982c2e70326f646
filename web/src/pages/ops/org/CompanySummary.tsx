import { Anchor, Table } from '@mantine/core';
import { INDUSTRIES, type OrgDto } from '@contracts';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { formatDate } from '../../../ops/format';
import { setupPath } from '../wizard/steps';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={200}>{label}</Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

/** The company info of an org (wizard step 1), read-only, with a link to edit it. */
export function CompanySummary({ org }: { org: OrgDto }) {
  const industry = INDUSTRIES.find((i) => i.value === org.industry)?.label ?? org.industry;
  return (
    <>
      <Table variant="vertical" withRowBorders={false} data-testid="company-summary">
        <Table.Tbody>
          <Row label="Legal name">{org.legalName}</Row>
          <Row label="Subdomain">{org.slug}</Row>
          <Row label="Industry">{industry}</Row>
          <Row label="Corporate domains">{org.corporateDomains.join(', ')}</Row>
          <Row label="Admin email">{org.adminEmail}</Row>
          <Row label="Website">{org.website}</Row>
          <Row label="Timezone">{org.timezone}</Row>
          <Row label="Billing email">{org.billingEmail ?? '—'}</Row>
          <Row label="Company size">{org.companySize ?? '—'}</Row>
          <Row label="Trial">
            {org.trialMode === 'none' ? 'No trial' : `Default trial${org.trialEndDate ? `, ends ${formatDate(org.trialEndDate)}` : ''}`}
            {org.trialStartedAt ? ` (started ${formatDate(org.trialStartedAt)})` : ''}
          </Row>
          <Row label="Created">{formatDate(org.createdAt)}</Row>
        </Table.Tbody>
      </Table>
      <Anchor component={Link} to={setupPath(org.id, 'step-1')} size="sm">
        Edit company info
      </Anchor>
    </>
  );
}
