import { z } from 'zod';
import { CalendarDaySchema } from './dates.js';
import { httpUrl } from './url.js';

/** OrgStatus of spec 2.1, in lifecycle order. */
export const ORG_STATUSES = ['pending_am_setup', 'pending_specialist_assignment', 'pending_client_confirmation', 'active', 'trial_ending', 'suspended', 'deactivated'] as const;
export type OrgStatus = (typeof ORG_STATUSES)[number];

/** Org slug (spec 2.1): 3 to 63 characters, lowercase letters, digits and inner hyphens. */
export const ORG_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
export const ORG_SLUG_MESSAGE = 'Lowercase letters, digits and inner hyphens; 3 to 63 characters';
/**
 * A slug as sent: taken exactly as typed, never lowercased or trimmed for the sender (`Acme-Co` is
 * refused, not stored as `acme-co`); the forms lowercase as the user types.
 */
export const OrgSlugSchema = z.string().regex(ORG_SLUG_PATTERN, ORG_SLUG_MESSAGE);

/** What a Subdomain field keeps of a keystroke: lowercase as the user types (the API itself lowercases nothing). */
export function typedSlug(value: string): string {
  return value.toLowerCase();
}

/** The first word of a Specialist's name: what the workspace alias is made from. */
export function firstNameOf(name: string): string {
  return name.trim().split(/\s+/)[0] ?? '';
}

/**
 * The wizard's preview of a workspace address (spec 2.3.1 rule 5): no server call, lowercase,
 * `[a-z0-9-]` kept, so it can differ from the stored alias (a hyphen previews but is not stored).
 * Null when the first name or the slug is missing: the line is then hidden.
 */
export function previewWorkspaceAlias(firstName: string | null | undefined, orgSlug: string | null | undefined, workspaceDomain: string): string | null {
  const first = (firstName ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '');
  const slug = (orgSlug ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '');
  if (!first || !slug) return null;
  return `${first}.${slug}@${workspaceDomain}`;
}

/** The 13 industries of spec 2.1 (their values are ours: the spec leaves them open). */
export const INDUSTRIES = [
  { value: 'technology', label: 'Technology & software' },
  { value: 'healthcare', label: 'Healthcare & life sciences' },
  { value: 'finance', label: 'Finance & insurance' },
  { value: 'retail', label: 'Retail & e-commerce' },
  { value: 'manufacturing', label: 'Manufacturing' },
  { value: 'education', label: 'Education' },
  { value: 'real_estate', label: 'Real estate & construction' },
  { value: 'professional_services', label: 'Professional services' },
  { value: 'hospitality', label: 'Hospitality & travel' },
  { value: 'media', label: 'Media & entertainment' },
  { value: 'logistics', label: 'Transportation & logistics' },
  { value: 'nonprofit', label: 'Nonprofit & public sector' },
  { value: 'other', label: 'Other' },
] as const;
export const INDUSTRY_VALUES = INDUSTRIES.map((i) => i.value) as [string, ...string[]];

export const MAX_CORPORATE_DOMAINS = 10;
const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

export const SlugAvailabilitySchema = z.object({
  slug: z.string(),
  valid: z.boolean(),
  available: z.boolean(),
  reason: z.enum(['invalid_format', 'reserved_word', 'taken']).nullable(),
});
export type SlugAvailability = z.infer<typeof SlugAvailabilitySchema>;

const isoDate = CalendarDaySchema;

/**
 * The logo (spec 2.1 "logo: image") is a file uploaded to the org, never an address the caller
 * gives: a body that still carries `logoUrl` is refused, not silently ignored.
 */
export const LOGO_UPLOAD_MESSAGE = 'The logo is uploaded as a file (PUT /api/orgs/{orgId}/logo), not given as a URL';
/** The logo types the upload accepts (sniffed from the bytes) and its size limit: what a file picker may offer. */
export const LOGO_ACCEPT = 'image/png,image/jpeg,image/webp';
export const LOGO_MAX_BYTES = 1024 * 1024;

/** Step 1 of the wizard (API-MAP.md "AM wizard"); the server adds the rules that need data. */
export const OrgStep1Fields = {
  legalName: z.string().trim().min(1, 'Required').max(200),
  slug: OrgSlugSchema,
  industry: z.enum(INDUSTRY_VALUES),
  corporateDomains: z
    .array(z.string().trim().toLowerCase().regex(DOMAIN, 'Not a domain name'))
    .min(1, 'At least one corporate domain')
    .max(MAX_CORPORATE_DOMAINS, `At most ${MAX_CORPORATE_DOMAINS} corporate domains`),
  adminEmail: z.string().trim().toLowerCase().pipe(z.email('Invalid email address')),
  website: httpUrl(),
  timezone: z.string().trim().min(1, 'Required'),
  logoUrl: z
    .unknown()
    .refine((value) => value === undefined, { error: LOGO_UPLOAD_MESSAGE })
    .optional()
    .describe(`Not accepted: ${LOGO_UPLOAD_MESSAGE}`),
  billingEmail: z.string().trim().toLowerCase().pipe(z.email('Invalid email address')).nullish(),
  companySize: z.string().trim().max(50).nullish(),
  trialEndDate: isoDate.nullish(),
  trialMode: z.enum(['default', 'none']).optional(),
};
export const CreateOrgSchema = z.object(OrgStep1Fields);
export type CreateOrgInput = z.infer<typeof CreateOrgSchema>;
export const UpdateOrgSchema = z
  .object({ ...OrgStep1Fields, assignedAmId: z.uuid().optional(), mailboxProvisioningDisabled: z.boolean().optional() })
  .partial()
  .refine((v) => Object.keys(v).length > 0, 'Send at least one field');
export type UpdateOrgInput = z.infer<typeof UpdateOrgSchema>;

export const Phase0StatusSchema = z.object({
  ready: z.boolean(),
  missing: z.array(z.string()),
  specialistAssigned: z.boolean(),
  expertMapped: z.boolean(),
});
export type Phase0Status = z.infer<typeof Phase0StatusSchema>;

/** An org's trial clock (spec 2.1): the default trial, or none (activated without one). */
export const TrialModeSchema = z.enum(['default', 'none']);
export type TrialMode = z.infer<typeof TrialModeSchema>;

/** The org as its members see it. */
export const OrgDtoSchema = z.object({
  id: z.uuid(),
  legalName: z.string(),
  slug: z.string(),
  industry: z.string(),
  corporateDomains: z.array(z.string()),
  adminEmail: z.string(),
  website: z.string(),
  timezone: z.string(),
  logoUrl: z.string().nullable().describe('Where the uploaded logo is read (GET /api/orgs/{orgId}/logo?v=<version>, with a token), or null without one'),
  billingEmail: z.string().nullable(),
  companySize: z.string().nullable(),
  trialEndDate: z.string().nullable(),
  trialMode: TrialModeSchema,
  trialStartedAt: z.string().nullable(),
  startDate: z.string().nullable(),
  status: z.enum(ORG_STATUSES),
  activatedAt: z.string().nullable(),
  assignedAmId: z.uuid().nullable(),
  mailboxProvisioningDisabled: z.boolean(),
  createdAt: z.string(),
});
export type OrgDto = z.infer<typeof OrgDtoSchema>;

/** A row of the staff's clients list: the org and the name of its assigned account manager. */
export const OrgListItemSchema = OrgDtoSchema.extend({ assignedAmName: z.string().nullable() });
export type OrgListItem = z.infer<typeof OrgListItemSchema>;

/** `GET /client/trial-info`: what the client's trial banner shows. */
export const TrialInfoSchema = z.object({
  orgId: z.uuid(),
  status: z.enum(ORG_STATUSES),
  trialMode: TrialModeSchema,
  trialStartedAt: z.string().nullable(),
  trialEndDate: z.string().nullable(),
  daysLeft: z.number().int().nullable(),
  ending: z.boolean(),
  showBanner: z.boolean(),
});
export type TrialInfo = z.infer<typeof TrialInfoSchema>;

/** The account manager's own profile (`/am/profile`): one name across every org. */
export const AmProfileSchema = z.object({ id: z.uuid(), email: z.string(), name: z.string() });
export type AmProfile = z.infer<typeof AmProfileSchema>;

/** The deployment settings the wizard reads (`GET /am/workspace`). */
export const WorkspaceSettingsSchema = z.object({ workspaceDomain: z.string() });
export type WorkspaceSettings = z.infer<typeof WorkspaceSettingsSchema>;

/** One of the 13 industries of spec 2.1 (`GET /am/industries`). */
export const IndustryOptionSchema = z.object({ value: z.string(), label: z.string() });
export type IndustryOption = z.infer<typeof IndustryOptionSchema>;
