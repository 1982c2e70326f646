import { z } from 'zod';

/** Client briefs (spec 9.2, formerly "environment profiles"): what the Specialist is told about the client. */
export const CLIENT_BRIEF_TITLE_MAX = 200;
export const CLIENT_BRIEF_CONTENT_MAX = 20_000;

export const ClientBriefDtoSchema = z.object({
  id: z.uuid(),
  orgId: z.uuid(),
  title: z.string(),
  content: z.string(),
  createdBy: z.string().nullable(),
  updatedBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ClientBriefDto = z.infer<typeof ClientBriefDtoSchema>;

export const CreateClientBriefSchema = z.object({
  /** Internal roles name the org; a client's org comes from its memberships (needed only with several). */
  orgId: z.uuid().optional(),
  title: z.string().trim().min(1).max(CLIENT_BRIEF_TITLE_MAX),
  content: z.string().trim().min(1).max(CLIENT_BRIEF_CONTENT_MAX),
});
export type CreateClientBriefInput = z.infer<typeof CreateClientBriefSchema>;

export const UpdateClientBriefSchema = z
  .object({
    title: z.string().trim().min(1).max(CLIENT_BRIEF_TITLE_MAX).optional(),
    content: z.string().trim().min(1).max(CLIENT_BRIEF_CONTENT_MAX).optional(),
  })
  .refine((v) => v.title !== undefined || v.content !== undefined, { message: 'Send title or content', path: ['title'] });
export type UpdateClientBriefInput = z.infer<typeof UpdateClientBriefSchema>;

export const ClientBriefListQuerySchema = z.object({
  orgId: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ClientBriefListQuery = z.infer<typeof ClientBriefListQuerySchema>;
