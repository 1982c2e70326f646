import { Anchor, Button, Card, Group, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { useAssignments, useOrg } from '../../../../ops/queries';
import { setupPath } from '../steps';
import { WizardFrame } from '../WizardFrame';
import { AddGrantForm } from './AddGrantForm';
import { CoverageSummary } from './CoverageSummary';
import { GrantsTable } from './GrantsTable';
import { useCoverage, useExperts, useGrants } from './queries';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

/** `/ops/clients/:id/setup/step-3`: wizard step 2, Expert assignment (spec 2.4, 4.2). */
export function ExpertAssignmentPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const org = useOrg(id);
  const experts = useExperts();
  const grants = useGrants(id);
  const coverage = useCoverage(id);
  const assignments = useAssignments(id);
  const specialistName = (specialistId: string) => assignments.data?.find((a) => a.specialistId === specialistId)?.specialist.name ?? specialistId;

  return (
    <WizardFrame title="Expert assignment" org={org.data} current="step-3">
      <QueryAlert title="Could not load the org" error={org.error} />
      <Text size="sm" c="dimmed">
        Grant Experts coverage of this org: org-wide (every Specialist, current and future) or for some of its Specialists.{' '}
        <Anchor component={Link} to={setupPath(id, 'step-2')} underline="always">
          Assign Specialists
        </Anchor>{' '}
        (optional) to scope grants to them.
      </Text>

      <Section title="Current grants">
        {grants.isPending && <SectionLoader label="Loading the grants" />}
        <QueryAlert title="Could not load the grants" error={grants.error} retry={() => void grants.refetch()} />
        {grants.data && <GrantsTable orgId={id} grants={grants.data} specialistName={specialistName} />}
      </Section>

      <Section title="Add a grant">
        {experts.isPending && <SectionLoader label="Loading the Experts" />}
        <QueryAlert title="Could not load the Experts" error={experts.error} retry={() => void experts.refetch()} />
        <QueryAlert title="Could not load the assigned Specialists" error={assignments.error} />
        {experts.data && assignments.data && <AddGrantForm orgId={id} experts={experts.data} assignments={assignments.data} />}
      </Section>

      <Section title="Coverage">
        <Text size="sm" c="dimmed" mb="sm" data-testid="coverage-note">
          Coverage is informational: it never blocks the client invite or finishing the setup.
        </Text>
        {coverage.isPending && <SectionLoader label="Loading the coverage" />}
        <QueryAlert title="Could not load the coverage" error={coverage.error} retry={() => void coverage.refetch()} />
        {coverage.data && <CoverageSummary coverage={coverage.data} />}
      </Section>

      <Group justify="space-between">
        <Anchor component={Link} to={setupPath(id, 'step-1')} size="sm">
          Back
        </Anchor>
        <Button onClick={() => void navigate(setupPath(id, 'step-4'))}>Continue</Button>
      </Group>
    </WizardFrame>
  );
}
