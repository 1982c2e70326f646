import { z } from 'zod';

/** The inbound channels with integrations (spec 2.5, 4.8); `web` is the portal itself. */
export const CHANNEL_NAMES = ['chat-a', 'messaging-a', 'messaging-b', 'email', 'enterprise-chat'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** Why an inbound event was kept without a turn (API-MAP.md "Channels"). */
export const QUARANTINE_REASONS = ['unresolved_org', 'binding_unverified', 'quota_exceeded', 'mailbox_suspended', 'org_inactive', 'no_specialist', 'malformed_body'] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/** How a channel's replies are getting out (`GET /orgs/:orgId/channels/status`). */
export const CHANNEL_DELIVERY = ['ok', 'retrying', 'failing'] as const;
export type ChannelDelivery = (typeof CHANNEL_DELIVERY)[number];

/** A binding routes inbound traffic only once its org proved control of the source (API-MAP.md "Channel bindings"). */
export const VERIFICATION_STATUSES = ['pending', 'verified'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** Integration verification codes: 8 characters without the look-alikes 0/O, 1/I/L. */
export const VERIFICATION_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const VERIFICATION_CODE_LENGTH = 8;

/** API-MAP.md "Sessions, sockets and hardening": a webhook secret anyone could guess protects nothing. */
export const WEBHOOK_SECRET_MIN_LENGTH = 32;

const secretValue = z.string().min(1).max(4096);
const secretsSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), secretValue)
  .superRefine((secrets, ctx) => {
    const webhookSecret = secrets.webhookSecret;
    if (webhookSecret !== undefined && webhookSecret.length < WEBHOOK_SECRET_MIN_LENGTH) {
      ctx.addIssue({ code: 'custom', path: ['webhookSecret'], message: `Must be at least ${WEBHOOK_SECRET_MIN_LENGTH} characters` });
    }
  })
  .meta({ description: `Write-only secrets by name; \`webhookSecret\` (messaging-b) is at least ${WEBHOOK_SECRET_MIN_LENGTH} characters` });

/** A messaging-a address: an E.164 number, or a WhatsApp sender `whatsapp:+<E.164>` (the vendor's own spelling). */
export const MESSAGING_A_ADDRESS = /^(whatsapp:)?\+[1-9]\d{4,14}$/;
const messagingAAddress = z.string().trim().regex(MESSAGING_A_ADDRESS, 'Must be an E.164 number, or whatsapp:+<E.164>');

/** `POST /orgs/:orgId/integrations`: secrets are write-only (never returned) and sealed at rest. */
export const CreateIntegrationSchema = z.object({
  channel: z.enum(CHANNEL_NAMES),
  /** The workspace (chat-a `team_id`) or tenant (enterprise-chat) id bound to this org. */
  externalId: z.string().trim().min(1).max(200).optional(),
  config: z
    .object({
      /** messaging-a: the sender addresses this org answers: E.164 numbers, `whatsapp:+<E.164>` for WhatsApp senders. */
      whitelist: z.array(messagingAAddress).max(500).optional(),
      /**
       * messaging-a on the org's own account: the numbers of that account that receive its messages
       * (`secrets.accountSid` and `secrets.authToken` required). Unset: the platform's number pool.
       */
      numbers: z.array(messagingAAddress).max(100).optional(),
    })
    .catchall(z.unknown())
    .optional(),
  secrets: secretsSchema.optional(),
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
  /**
   * `pending` until the org proves control of the source: a message through the channel that
   * contains `verificationCode`, or an account manager's verification. Pending traffic is
   * quarantined with reason `binding_unverified` and produces no turn.
   */
  verificationStatus: z.enum(VERIFICATION_STATUSES),
  /** Shown while pending only; null once verified. */
  verificationCode: z.string().nullable(),
  /** The workspace, tenant, sender numbers or messaging-a account still awaiting proof (a messaging-b secret is never listed). */
  pendingSources: z.array(z.string()),
  verifiedAt: z.string().nullable(),
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
  /**
   * Whether replies get out: `failing` when the newest reply that finished was not delivered after
   * all its attempts (spec 8) and none has been sent since; `retrying` when replies wait for a
   * retry after an error; `ok` otherwise.
   */
  delivery: z.enum(CHANNEL_DELIVERY),
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
