import { Select, SimpleGrid, TextInput } from '@mantine/core';
import type { ChangeEvent, ReactNode } from 'react';
import type { FieldErrors } from '../../../../ops/errors';
import type { CompanyFormValues } from './company-form';
import { CorporateDomainsField } from './CorporateDomainsField';
import { IndustrySelect } from './IndustrySelect';
import { SlugField } from './SlugField';
import { TimezoneSelect } from './TimezoneSelect';
import { TrialFields } from './TrialFields';

const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5000+'];

/** The fields of step 1 (CreateOrgSchema); the page owns the values and the submit. */
export function CompanyInfoForm({
  values,
  onChange,
  errors,
  orgId,
  slugLocked,
  logo,
}: {
  values: CompanyFormValues;
  onChange: (patch: Partial<CompanyFormValues>) => void;
  errors: FieldErrors;
  orgId?: string;
  slugLocked: boolean;
  /** The logo field: an upload of its own (the org's logo route), not a value of this form. */
  logo: ReactNode;
}) {
  const text = (field: 'legalName' | 'adminEmail' | 'website' | 'billingEmail') => ({
    value: values[field],
    onChange: (event: ChangeEvent<HTMLInputElement>) => onChange({ [field]: event.currentTarget.value }),
    error: errors[field],
  });
  const sizes = values.companySize && !COMPANY_SIZES.includes(values.companySize) ? [values.companySize, ...COMPANY_SIZES] : COMPANY_SIZES;

  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Legal name" required autoComplete="organization" {...text('legalName')} />
        <SlugField value={values.slug} onChange={(slug) => onChange({ slug })} orgId={orgId} disabled={slugLocked} error={errors.slug} />
        <IndustrySelect value={values.industry} onChange={(industry) => onChange({ industry })} error={errors.industry} />
        <TimezoneSelect value={values.timezone} onChange={(timezone) => onChange({ timezone })} error={errors.timezone} />
        <TextInput label="Admin email" description="Receives the client invite" type="email" required {...text('adminEmail')} />
        <TextInput label="Website" placeholder="https://example.com" required {...text('website')} />
      </SimpleGrid>
      <CorporateDomainsField value={values.corporateDomains} onChange={(corporateDomains) => onChange({ corporateDomains })} errors={errors} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Billing email" type="email" {...text('billingEmail')} />
        <Select label="Company size" data={sizes} value={values.companySize || null} onChange={(size) => onChange({ companySize: size ?? '' })} clearable error={errors.companySize} />
      </SimpleGrid>
      {logo}
      <TrialFields
        mode={values.trialMode}
        endDate={values.trialEndDate}
        onModeChange={(trialMode) => onChange({ trialMode })}
        onEndDateChange={(trialEndDate) => onChange({ trialEndDate })}
        errors={errors}
      />
    </>
  );
}
