import { Anchor, Group } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { amApi, amKeys } from '../../../../ops/am.api';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { useOrg } from '../../../../ops/queries';
import { setupPath } from '../steps';
import { WizardFrame } from '../WizardFrame';
import { FinishSetup, SetupFinished } from './FinishSetup';
import { invitable } from './gate';
import { InviteCard } from './InviteCard';
import { OnboardingLinkCard } from './OnboardingLinkCard';
import { Phase0StatusCard } from './Phase0StatusCard';

/** `/ops/clients/:id/setup/step-4`: wizard step 3, Client invite. */
export function ClientInvitePage() {
  const { id = '' } = useParams();
  const org = useOrg(id);
  const gate = useQuery({ queryKey: amKeys.phase0(id), queryFn: ({ signal }) => amApi.phase0Status(id, signal) });

  return (
    <WizardFrame title="Client invite" org={org.data} current="step-4">
      {(org.isPending || gate.isPending) && <SectionLoader label="Loading the setup checks" />}
      <QueryAlert title="Could not load the org" error={org.error} />
      <QueryAlert title="Could not load the setup checks" error={gate.error} retry={() => void gate.refetch()} />
      {gate.data && <Phase0StatusCard orgId={id} status={gate.data} />}
      {org.data &&
        gate.data &&
        (invitable(org.data.status) ? (
          <>
            <InviteCard key={org.data.id} org={org.data} ready={gate.data.ready} />
            <OnboardingLinkCard orgId={id} />
            {org.data.status === 'pending_am_setup' && <FinishSetup org={org.data} ready={gate.data.ready} />}
          </>
        ) : (
          <SetupFinished org={org.data} />
        ))}
      <Group>
        <Anchor component={Link} to={setupPath(id, 'step-3')} size="sm">
          Back
        </Anchor>
      </Group>
    </WizardFrame>
  );
}
