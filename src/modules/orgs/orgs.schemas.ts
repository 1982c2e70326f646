import { z } from 'zod';

export const OrgIdParamsSchema = z.object({ orgId: z.uuid() });

// The org's wire shapes live in the contracts, so the web app reads the types the API answers with.
export { OrgDtoSchema, OrgListItemSchema, type OrgDto, type OrgListItem } from '../../contracts/orgs.js';
