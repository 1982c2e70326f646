import { CHANNEL_NAMES, type ChannelName, type QuarantineReason } from '@contracts';

export interface FieldInfo {
  /** The key under `config` or `secrets` (or `externalId`). */
  key: string;
  label: string;
  description: string;
  /** Needed to connect; an edit may leave it as it is. */
  required: boolean;
}

export interface ConfigFieldInfo extends FieldInfo {
  /** `numbers`: a list of E.164 numbers (messaging-a's whitelist); `text`: one value. */
  kind: 'text' | 'numbers';
}

/** What connecting a channel asks for (API-MAP.md "Channels"). */
export interface IntegrationFields {
  externalId?: FieldInfo;
  config: ConfigFieldInfo[];
  secrets: FieldInfo[];
}

export interface ChannelInfo {
  channel: ChannelName;
  label: string;
  description: string;
  /** Null for email: mail to a Specialist's workspace address needs no integration. */
  fields: IntegrationFields | null;
}

const INFO: Record<ChannelName, Omit<ChannelInfo, 'channel'>> = {
  'chat-a': {
    label: 'Chat A',
    description: 'A team chat workspace. Your Specialist answers mentions and direct messages of the bot; the workspace id routes its events to your organization.',
    fields: {
      externalId: { key: 'externalId', label: 'Workspace id', description: 'The id of your chat workspace (team id).', required: true },
      config: [{ key: 'botUserId', label: 'Bot user id', description: 'The user id of the installed bot, to recognise its mentions and its own messages.', required: false, kind: 'text' }],
      secrets: [{ key: 'botToken', label: 'Bot token', description: 'Used to post the replies.', required: true }],
    },
  },
  'messaging-a': {
    label: 'Messaging A',
    description:
      "Text and WhatsApp messages, to the service's numbers or to your own account's numbers. On the service's numbers, only the sender numbers listed here reach your Specialist; on your own account, the list (when set) filters the senders.",
    fields: {
      config: [
        {
          key: 'whitelist',
          label: 'Sender numbers',
          description: 'E.164 numbers, such as +4915112345678, or whatsapp:+4915112345678 for WhatsApp senders. Press Enter after each.',
          required: false,
          kind: 'numbers',
        },
        {
          key: 'numbers',
          label: 'Your own numbers',
          description: "Only with your own account: the account's numbers (or whatsapp: senders) that receive the messages. Leave empty to use the service's numbers.",
          required: false,
          kind: 'numbers',
        },
      ],
      secrets: [
        { key: 'accountSid', label: 'Account SID', description: 'Only with your own account: its Account SID (AC...).', required: false },
        { key: 'authToken', label: 'Auth token', description: 'Only with your own account: its auth token (it verifies the webhooks and sends the replies).', required: false },
      ],
    },
  },
  'messaging-b': {
    label: 'Messaging B',
    description: 'A messenger bot. The secret token you give the bot tells us its messages are yours; the bot token sends the replies.',
    fields: {
      config: [{ key: 'botUsername', label: 'Bot username', description: 'Without the @, to recognise mentions of the bot in groups.', required: false, kind: 'text' }],
      secrets: [
        { key: 'webhookSecret', label: 'Secret token', description: "The secret token you set for the bot's messages (at least 32 characters); every message of the bot carries it.", required: true },
        { key: 'botToken', label: 'Bot token', description: 'Used to send the replies.', required: true },
      ],
    },
  },
  email: {
    label: 'Email',
    description: "Mail sent to your Specialists' workspace addresses is received and answered. There is nothing to connect.",
    fields: null,
  },
  'enterprise-chat': {
    label: 'Enterprise chat',
    description: 'Personal chats, group chats and channel threads with the bot. Your tenant id routes its activities to your organization.',
    fields: {
      externalId: { key: 'externalId', label: 'Tenant id', description: 'The id of your directory tenant.', required: true },
      config: [],
      secrets: [],
    },
  },
};

/** The channels in the order of the contracts (spec 4.8). */
export const CHANNELS: readonly ChannelInfo[] = CHANNEL_NAMES.map((channel) => ({ channel, ...INFO[channel] }));

export function channelLabel(channel: ChannelName): string {
  return INFO[channel].label;
}

const REASON_LABELS: Record<QuarantineReason, string> = {
  unresolved_org: 'No organization',
  binding_unverified: 'Binding not verified',
  malformed_body: 'Malformed body',
  quota_exceeded: 'Message quota exceeded',
  mailbox_suspended: 'Mailbox suspended',
  org_inactive: 'Organization inactive',
  no_specialist: 'No Specialist',
};

export function reasonLabel(reason: string | null): string {
  if (!reason) return '—';
  return (REASON_LABELS as Record<string, string>)[reason] ?? reason;
}

/**
 * How an org proves that a channel's source is its own: the code sent through that channel
 * (API-MAP.md "Channel bindings and vendor traffic").
 */
export const PROOF_HINTS: Record<ChannelName, string> = {
  'chat-a': 'Send the code to the bot from your workspace, in a direct message or a message that mentions it.',
  'messaging-a': 'Text the code to the service number from each sender number still waiting, or, with your own account, to one of its numbers.',
  'messaging-b': 'Send the code to the bot in a private chat.',
  email: '',
  'enterprise-chat': 'Send the code to the bot from your tenant, in a personal chat or a message that mentions it.',
};

/** How a channel's replies are getting out (the health's `delivery`). */
export const DELIVERY_LABELS: Record<'ok' | 'retrying' | 'failing', { label: string; color: string }> = {
  ok: { label: 'Delivering', color: 'teal' },
  retrying: { label: 'Retrying', color: 'yellow' },
  failing: { label: 'Failing: replies not delivered', color: 'red' },
};

export const BREAKER_LABELS: Record<'closed' | 'open' | 'half_open', { label: string; color: string }> = {
  closed: { label: 'Closed', color: 'teal' },
  half_open: { label: 'Half open', color: 'yellow' },
  open: { label: 'Open', color: 'red' },
};

/** Who reads a channel page: staff keep the precise terms, a client reads plain words. */
export type ChannelAudience = 'client' | 'staff';

/**
 * How the replies of a channel are getting out, in a client's words: the delivery state and the
 * outbound circuit breaker as one status ("Delivery paused, retrying" while the breaker is open).
 */
export function clientDeliveryLabel(health: { delivery: 'ok' | 'retrying' | 'failing'; breaker: 'closed' | 'open' | 'half_open' }): { label: string; color: string } {
  if (health.delivery === 'failing') return { label: 'Replies not delivered', color: 'red' };
  if (health.breaker === 'open') return { label: 'Delivery paused, retrying', color: 'orange' };
  if (health.breaker === 'half_open') return { label: 'Delivery resuming', color: 'yellow' };
  if (health.delivery === 'retrying') return { label: 'Retrying', color: 'yellow' };
  return { label: 'Delivering', color: 'teal' };
}

/** A stored secret by its label ("Bot token"), never its key. */
export function secretLabel(fields: IntegrationFields, key: string): string {
  return fields.secrets.find((f) => f.key === key)?.label ?? key;
}
