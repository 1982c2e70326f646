import { z } from 'zod';
import { baseUrl, intFrom, list, optionalString, optionalUrl, STRANDED_AFTER_MS } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/**
 * The vendors' public file hosts (docs/configuration.md): chat-a files, messaging-a media (the
 * media URL on its REST API, which redirects to its media CDN, or to its storage for media from
 * before HTTP authentication was enforced on media), messaging-b Bot API file downloads,
 * enterprise-chat connector attachments, inline images and shared files.
 */
export const DEFAULT_ATTACHMENT_HOSTS: readonly string[] = [
  'files.slack.com',
  'api.twilio.com',
  'mms.twiliocdn.com',
  'media.twiliocdn.com',
  's3-external-1.amazonaws.com',
  'api.telegram.org',
  'smba.trafficmanager.net',
  '*.botframework.com',
  '*.asm.skype.com',
  '*.sharepoint.com',
];

/** `host[:port]`, `*.domain[:port]` or `[ipv6][:port]`. */
const ATTACHMENT_HOST = /^(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The channels' settings (docs/channels.md): inbound secrets, vendor APIs, limits, recovery. */
export const channelsConfig = defineConfigSlice('channels', {
  variables: {
    CHAT_A_SIGNING_SECRET: optionalString,
    MESSAGING_A_AUTH_TOKEN: optionalString,
    MESSAGING_A_NUMBER_POOL: optionalString,
    EMAIL_INBOUND_SIGNING_SECRET: optionalString,
    MAILGUN_WEBHOOK_SIGNING_KEY: optionalString,
    ENTERPRISE_CHAT_APP_ID: optionalString,
    ENTERPRISE_CHAT_OPENID_METADATA_URL: optionalUrl,
    ENTERPRISE_CHAT_ISSUERS: optionalString,
    ATTACHMENT_HOSTS: optionalString.pipe(
      z
        .string()
        .refine((v) => v.split(',').every((h) => h.trim() === '' || ATTACHMENT_HOST.test(h.trim())), 'must be a comma-separated list of host[:port] (a leading *. matches subdomains)')
        .optional(),
    ),
    CHANNEL_ENGAGEMENT_TTL_HOURS: intFrom(24, 1),
    CHAT_A_API_BASE_URL: optionalUrl,
    MESSAGING_A_API_BASE_URL: optionalUrl,
    MESSAGING_B_API_BASE_URL: optionalUrl,
    ENTERPRISE_CHAT_APP_PASSWORD: optionalString,
    ENTERPRISE_CHAT_TOKEN_URL: optionalUrl,
    ENTERPRISE_CHAT_TOKEN_SCOPE: optionalString,
    CHANNEL_BREAKER_RESET_MS: intFrom(30_000, 100),
    CHAT_A_WEBHOOK_THROTTLE_PER_MINUTE: intFrom(1000, 1),
    INBOUND_QUEUE_MAX_DEPTH: intFrom(10000, 1),
    BACKPRESSURE_RETRY_AFTER_S: intFrom(30, 1),
    INBOUND_LEASE_MS: intFrom(300_000, 1000),
    STRANDED_AFTER_MS,
  },
  build: (e) => ({
    /** What inbound calls are verified against, and where their attachments may come from. */
    inbound: {
      chatASigningSecret: e.CHAT_A_SIGNING_SECRET,
      messagingAAuthToken: e.MESSAGING_A_AUTH_TOKEN,
      messagingANumberPool: list(e.MESSAGING_A_NUMBER_POOL),
      emailInboundSigningSecret: e.EMAIL_INBOUND_SIGNING_SECRET,
      /** The Mailgun webhook signing key: the inbound Route door (`/channels/email/forward/mime`) refuses everything without it. */
      mailgunWebhookSigningKey: e.MAILGUN_WEBHOOK_SIGNING_KEY,
      enterpriseChatAppId: e.ENTERPRISE_CHAT_APP_ID,
      enterpriseChatOpenIdMetadataUrl: e.ENTERPRISE_CHAT_OPENID_METADATA_URL,
      enterpriseChatIssuers: list(e.ENTERPRISE_CHAT_ISSUERS),
      /** Where inbound attachments may be fetched from: `host[:port]` (`*.` matches subdomains). */
      attachmentHosts: e.ATTACHMENT_HOSTS ? list(e.ATTACHMENT_HOSTS.toLowerCase()) : [...DEFAULT_ATTACHMENT_HOSTS],
    },
    /** An engagement with the bot (chat-a, enterprise-chat, messaging-b groups) lasts this long after the last message. */
    engagementTtlHours: e.CHANNEL_ENGAGEMENT_TTL_HOURS,
    /** The vendor APIs replies are sent to, each behind a circuit breaker. */
    apis: {
      chatAApiBaseUrl: baseUrl(e.CHAT_A_API_BASE_URL),
      messagingAApiBaseUrl: baseUrl(e.MESSAGING_A_API_BASE_URL),
      messagingBApiBaseUrl: baseUrl(e.MESSAGING_B_API_BASE_URL),
      enterpriseChatAppId: e.ENTERPRISE_CHAT_APP_ID,
      enterpriseChatAppPassword: e.ENTERPRISE_CHAT_APP_PASSWORD,
      enterpriseChatTokenUrl: e.ENTERPRISE_CHAT_TOKEN_URL,
      enterpriseChatTokenScope: e.ENTERPRISE_CHAT_TOKEN_SCOPE,
      breakerResetMs: e.CHANNEL_BREAKER_RESET_MS,
    },
    limits: {
      /** The chat-a webhook throttle per workspace (spec 8: 1000 requests per 60 000 ms window). */
      chatAWebhookPerMinute: e.CHAT_A_WEBHOOK_THROTTLE_PER_MINUTE,
      inboundQueueMaxDepth: e.INBOUND_QUEUE_MAX_DEPTH,
      backpressureRetryAfterS: e.BACKPRESSURE_RETRY_AFTER_S,
    },
    recovery: {
      /** An inbound event being processed is held this long; past it the sweep may take it again. */
      inboundLeaseMs: e.INBOUND_LEASE_MS,
      /** An inbound event still queued this long lost its request or job: the sweep takes it. */
      strandedAfterMs: e.STRANDED_AFTER_MS,
    },
  }),
});

export type ChannelsConfig = ReturnType<typeof channelsConfig.read>;
