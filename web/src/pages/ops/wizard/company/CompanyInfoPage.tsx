import type { OrgDto } from '@contracts';
import { Alert, Anchor, Button, Group, Stack } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearchParams } from 'react-router';
import { amKeys } from '../../../../ops/am.api';
import { unshownErrorMessage } from '../../../../ops/errors';
import { isPendingStatus } from '../../../../ops/org-status';
import { QueryAlert, SectionLoader } from '../../../../ops/QueryAlert';
import { useAmProfile, useOrg, useSpecialistPool } from '../../../../ops/queries';
import { LogoField } from '../../../../orgs/LogoField';
import { WizardFrame } from '../WizardFrame';
import { AmProfileNameField } from './AmProfileNameField';
import { CompanyInfoForm } from './CompanyInfoForm';
import { companyFormOf, emptyCompanyForm, isCompanyField, slugEditable, suggestSlug, type CompanyFormValues } from './company-form';
import { useSaveCompany } from './use-save-company';

/** `?specialist=<slug>` on /new: the Specialist preselected on the Specialist step once the org exists. */
function PreassignNotice({ slug }: { slug: string }) {
  const pool = useSpecialistPool();
  const specialist = pool.data?.find((s) => s.slug === slug);
  if (pool.isPending) return null;
  if (pool.error) return <QueryAlert title="Could not load the Specialist pool" error={pool.error} />;
  return specialist ? (
    <Alert color="blue" title="Preassignment" data-testid="preassign-notice">
      {specialist.name} will be preselected on the Specialist step, where you can set a rate override before assigning.
    </Alert>
  ) : (
    <Alert color="yellow" title="Preassignment" data-testid="preassign-notice">
      There is no Specialist “{slug}” in the pool; the org will be created without one.
    </Alert>
  );
}

function CompanyInfoEditor({ org }: { org?: OrgDto }) {
  const [searchParams] = useSearchParams();
  const preassignSlug = org ? null : searchParams.get('specialist');
  const pool = useSpecialistPool(Boolean(preassignSlug));
  const profile = useAmProfile();
  const [values, setValues] = useState<CompanyFormValues>(() => (org ? companyFormOf(org) : emptyCompanyForm()));
  const [slugTouched, setSlugTouched] = useState(Boolean(org));
  const [profileName, setProfileName] = useState('');
  const [pendingLogo, setPendingLogo] = useState<File | null>(null);
  const queryClient = useQueryClient();
  const logoError = (useLocation().state as { logoError?: string } | null)?.logoError;
  const needsProfileName = profile.data !== undefined && profile.data.name.trim() === '';
  const save = useSaveCompany(org);

  const change = (patch: Partial<CompanyFormValues>) => {
    if (patch.slug !== undefined) setSlugTouched(true);
    setValues((current) => {
      const next = { ...current, ...patch };
      if (!slugTouched && patch.legalName !== undefined) next.slug = suggestSlug(patch.legalName);
      return next;
    });
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.submit({
      values,
      profileName: needsProfileName ? profileName : undefined,
      preassign: preassignSlug ? { slug: preassignSlug, specialist: pool.data?.find((s) => s.slug === preassignSlug) } : undefined,
      logo: pendingLogo,
    });
  };

  const alert = unshownErrorMessage(save.formError, save.fieldErrors, isCompanyField);
  const pending = !org || isPendingStatus(org.status);

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Company info">
      <Stack gap="md">
        {preassignSlug && <PreassignNotice slug={preassignSlug} />}
        {profile.error && <QueryAlert title="Could not load your AM profile" error={profile.error} />}
        {needsProfileName && <AmProfileNameField value={profileName} onChange={setProfileName} error={save.fieldErrors.amProfileName} />}
        {logoError && (
          <Alert color="yellow" title="The org was created without its logo" data-testid="logo-error">
            {logoError} Upload it again below.
          </Alert>
        )}
        <CompanyInfoForm
          values={values}
          onChange={change}
          errors={save.fieldErrors}
          orgId={org?.id}
          slugLocked={!slugEditable(org?.status)}
          logo={
            org ? (
              <LogoField
                orgId={org.id}
                orgName={org.legalName}
                logoUrl={org.logoUrl}
                onSaved={(saved) => {
                  queryClient.setQueryData(amKeys.orgRecord(saved.id), saved);
                  void queryClient.invalidateQueries({ queryKey: amKeys.orgLists });
                }}
              />
            ) : (
              <LogoField orgName={values.legalName} pending={pendingLogo} onPendingChange={setPendingLogo} />
            )
          }
        />
        {alert && (
          <Alert color="red" role="alert" title="Could not save the company info">
            {alert}
          </Alert>
        )}
        <Group justify="space-between">
          <Anchor component={Link} to={org ? `/ops/clients/${org.id}` : '/ops/clients'} size="sm">
            Cancel
          </Anchor>
          <Button type="submit" loading={save.isPending}>
            {org ? (pending ? 'Save and continue' : 'Save') : 'Create and continue'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Wizard step 1 (`/ops/clients/new` and `/ops/clients/:id/setup/step-1`): company info. */
export function CompanyInfoPage() {
  const { id } = useParams();
  const org = useOrg(id);

  if (!id) {
    return (
      <WizardFrame title="New client" current="step-1">
        <CompanyInfoEditor />
      </WizardFrame>
    );
  }
  return (
    <WizardFrame title="Company info" org={org.data} current="step-1">
      {org.isPending && <SectionLoader label="Loading the org" />}
      <QueryAlert title="Could not load the org" error={org.error} retry={() => void org.refetch()} />
      {org.data && <CompanyInfoEditor key={org.data.id} org={org.data} />}
    </WizardFrame>
  );
}
