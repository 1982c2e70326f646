import { type CreateOrgInput, CreateOrgSchema, type OrgDto, type OrgStatus, type TrialMode, type UpdateOrgInput } from '@contracts';
import { zodFieldErrors, type FieldErrors } from '../../../../ops/errors';

/** The step-1 form as typed: strings, with '' for "not given". */
export interface CompanyFormValues {
  legalName: string;
  slug: string;
  industry: string;
  corporateDomains: string[];
  adminEmail: string;
  website: string;
  timezone: string;
  billingEmail: string;
  companySize: string;
  trialEndDate: string;
  trialMode: TrialMode;
}

export function browserTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function emptyCompanyForm(): CompanyFormValues {
  return {
    legalName: '',
    slug: '',
    industry: '',
    corporateDomains: [''],
    adminEmail: '',
    website: '',
    timezone: browserTimezone(),
    billingEmail: '',
    companySize: '',
    trialEndDate: '',
    trialMode: 'default',
  };
}

export function companyFormOf(org: OrgDto): CompanyFormValues {
  return {
    legalName: org.legalName,
    slug: org.slug,
    industry: org.industry,
    corporateDomains: org.corporateDomains.length > 0 ? [...org.corporateDomains] : [''],
    adminEmail: org.adminEmail,
    website: org.website,
    timezone: org.timezone,
    billingEmail: org.billingEmail ?? '',
    companySize: org.companySize ?? '',
    trialEndDate: org.trialEndDate ?? '',
    trialMode: org.trialMode,
  };
}

/** A subdomain suggested from the legal name: ASCII letters and digits joined by hyphens. */
export function suggestSlug(legalName: string): string {
  return legalName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}

/** The server's rule: the slug can change until the client confirms. */
export function slugEditable(status: OrgStatus | undefined): boolean {
  return status === undefined || status === 'pending_am_setup' || status === 'pending_client_confirmation';
}

const optional = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());

/** The create body (CreateOrgSchema): optional fields left empty are not sent. */
export function createPayloadOf(values: CompanyFormValues): CreateOrgInput {
  return {
    legalName: values.legalName.trim(),
    slug: values.slug.trim().toLowerCase(),
    industry: values.industry,
    corporateDomains: values.corporateDomains.map((d) => d.trim().toLowerCase()),
    adminEmail: values.adminEmail.trim(),
    website: values.website.trim(),
    timezone: values.timezone,
    billingEmail: optional(values.billingEmail),
    companySize: optional(values.companySize),
    trialEndDate: values.trialMode === 'none' ? undefined : optional(values.trialEndDate),
    trialMode: values.trialMode,
  };
}

/** Parses with the shared contract, so the form shows the same messages the server would. */
export function validateCompanyForm(values: CompanyFormValues): FieldErrors {
  const parsed = CreateOrgSchema.safeParse(createPayloadOf(values));
  const errors: FieldErrors = parsed.success ? {} : zodFieldErrors(parsed.error);
  // Plainer words than the schema's for fields left empty.
  if (!values.industry) errors.industry = 'Pick an industry';
  if (!values.adminEmail.trim()) errors.adminEmail = 'Required';
  if (!values.website.trim()) errors.website = 'Required';
  values.corporateDomains.forEach((domain, index) => {
    if (!domain.trim()) errors[`corporateDomains.${index}`] = 'Required';
  });
  if (values.trialMode !== 'none' && values.trialEndDate && values.trialEndDate <= todayIso()) {
    errors.trialEndDate ??= 'Must be strictly in the future';
  }
  return errors;
}

/** The re-edit body (UpdateOrgSchema): only what changed; a cleared optional field is sent as null. */
export function updatePayloadOf(values: CompanyFormValues, org: OrgDto): UpdateOrgInput {
  const next = createPayloadOf(values);
  const body: UpdateOrgInput = {};
  if (next.legalName !== org.legalName) body.legalName = next.legalName;
  if (next.slug !== org.slug && slugEditable(org.status)) body.slug = next.slug;
  if (next.industry !== org.industry) body.industry = next.industry;
  if (JSON.stringify(next.corporateDomains) !== JSON.stringify(org.corporateDomains)) body.corporateDomains = next.corporateDomains;
  if (next.adminEmail !== org.adminEmail) body.adminEmail = next.adminEmail;
  if (next.website !== org.website) body.website = next.website;
  if (next.timezone !== org.timezone) body.timezone = next.timezone;
  if ((next.billingEmail ?? null) !== org.billingEmail) body.billingEmail = next.billingEmail ?? null;
  if ((next.companySize ?? null) !== org.companySize) body.companySize = next.companySize ?? null;
  if ((next.trialEndDate ?? null) !== org.trialEndDate) body.trialEndDate = next.trialEndDate ?? null;
  if (next.trialMode !== org.trialMode) body.trialMode = next.trialMode;
  return body;
}

/** Today in the browser's calendar, YYYY-MM-DD. */
export function todayIso(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function tomorrowIso(now = new Date()): string {
  const next = new Date(now);
  next.setDate(now.getDate() + 1);
  return todayIso(next);
}

/** Every field of the form, for deciding which API errors are shown beside a field. */
export const COMPANY_FIELDS = [
  'legalName',
  'slug',
  'industry',
  'corporateDomains',
  'adminEmail',
  'website',
  'timezone',
  'logo',
  'billingEmail',
  'companySize',
  'trialEndDate',
  'trialMode',
  'amProfileName',
] as const;

export function isCompanyField(field: string): boolean {
  return (COMPANY_FIELDS as readonly string[]).includes(field.split('.')[0]!);
}
