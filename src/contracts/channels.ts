import { z } from 'zod';

/** The inbound channels with integrations (spec 2.5, 4.8); `web` is the portal itself. */
export const CHANNEL_NAMES = ['chat-a', 'messaging-a', 'messaging-b', 'email', 'enterprise-chat'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** Why an inbound event was kept without a turn (API-MAP.md "Channels"). */
export const QUARANTINE_REASONS = ['unresolved_org', 'quota_exceeded', 'mailbox_suspended', 'org_inactive', 'no_specialist'] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

const secretValue = z.string().min(1).max(4096);

/** `POST /orgs/:orgId/integrations`: secrets are write-only (never returned) and sealed at rest. */
export const CreateIntegrationSchema = z.object({
  channel: z.enum(CHANNEL_NAMES),
  /** The workspace (chat-a `team_id`) or tenant (enterprise-chat) id bound to this org. */
  externalId: z.string().trim().min(1).max(200).optional(),
  config: z
    .object({
      /** messaging-a: the sender numbers (E.164) this org answers. */
      whitelist: z.array(z.string().trim().regex(/^\+[1-9]\d{4,14}$/, 'Must be an E.164 number')).max(500).optional(),
    })
    .catchall(z.unknown())
    .optional(),
  secrets: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), secretValue).optional(),
  enabled: z.boolean().optional(),
});
export type CreateIntegrationInput = z.infer<typeof CreateIntegrationSchema>;

export const UpdateIntegrationSchema = CreateIntegrationSchema.omit({ channel: true }).partial();
export type UpdateIntegrationInput = z.infer<typeof UpdateIntegrationSchema>;

export const IntegrationDtoSchema = z.object({
  id: z.uuid(),
  orgId: z.uuid(),
  channel: z.enum(CHANNEL_NAMES),
  externalId: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  /** The names of the stored secrets; their values are never returned. */
  secretNames: z.array(z.string()),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type IntegrationDto = z.infer<typeof IntegrationDtoSchema>;

export const ChannelHealthSchema = z.object({
  channel: z.enum(CHANNEL_NAMES),
  connected: z.boolean(),
  lastInboundAt: z.string().nullable(),
  lastOutboundAt: z.string().nullable(),
  breaker: z.enum(['closed', 'open', 'half_open']),
  /** Outbound sends that failed in the last 24 hours, and inbound events quarantined then. */
  recentFailures: z.number().int(),
  recentQuarantined: z.number().int(),
  lastError: z.string().nullable(),
});

export const WebhookUrlsSchema = z.record(z.enum(CHANNEL_NAMES), z.array(z.string()));

export const InboundEventDtoSchema = z.object({
  id: z.uuid(),
  channel: z.enum(CHANNEL_NAMES),
  status: z.string(),
  reason: z.string().nullable(),
  orgId: z.string().nullable(),
  receivedAt: z.string(),
  processedAt: z.string().nullable(),
  /** The first characters of the verified body, for ops. */
  preview: z.string(),
});
