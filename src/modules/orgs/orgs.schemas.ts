import { z } from 'zod';
import { ORG_STATUSES } from './orgs.tables.js';

export const OrgIdParamsSchema = z.object({ orgId: z.uuid() });

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
  logoUrl: z.string().nullable(),
  billingEmail: z.string().nullable(),
  companySize: z.string().nullable(),
  trialEndDate: z.string().nullable(),
  trialMode: z.enum(['default', 'none']),
  trialStartedAt: z.string().nullable(),
  startDate: z.string().nullable(),
  status: z.enum(ORG_STATUSES),
  activatedAt: z.string().nullable(),
  assignedAmId: z.uuid().nullable(),
  mailboxProvisioningDisabled: z.boolean(),
  createdAt: z.string(),
});
export type OrgDto = z.infer<typeof OrgDtoSchema>;
