import { z } from 'zod';

/** A vendor webhook's answer: kept (`ok`), or a redelivery acknowledged without a second copy (`duplicate`). */
export const WebhookAcceptedSchema = z.object({ ok: z.boolean(), duplicate: z.boolean().optional() });
export type WebhookAccepted = z.infer<typeof WebhookAcceptedSchema>;

/** chat-a's answer: an event accepted, or the challenge of its url_verification echoed. */
export const ChatAAnswerSchema = WebhookAcceptedSchema.or(z.object({ challenge: z.string() }));
export type ChatAAnswer = z.infer<typeof ChatAAnswerSchema>;
