import { simpleParser, type AddressObject } from 'mailparser';
import { storableText } from '../../platform/db/storable-text.js';
import type { InboundAttachment } from './channels.parse.js';

export interface ParsedEmail {
  messageId: string | null;
  /** In-Reply-To and References, oldest first: the chain a reply threads into. */
  chain: string[];
  from: { address: string; name: string | null } | null;
  /** Every recipient address (To, Cc, Delivered-To), lowercased. */
  recipients: string[];
  subject: string | null;
  text: string;
  attachments: InboundAttachment[];
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((a) => a.value.map((v) => v.address?.toLowerCase()).filter((x): x is string => Boolean(x)));
}

/** Reads a base64 RFC 822 message with mailparser. */
export async function parseEmail(raw: Buffer): Promise<ParsedEmail> {
  const mail = await simpleParser(raw, { skipHtmlToText: false, skipTextLinks: true });
  const references = Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [];
  const inReplyTo = mail.inReplyTo ? [mail.inReplyTo] : [];
  const delivered = mail.headers.get('delivered-to');
  const deliveredTo = typeof delivered === 'string' ? [delivered.toLowerCase()] : [];
  const from = mail.from?.value[0];
  const clean = (v: string | undefined | null) => (v ? storableText(v) : v);
  return {
    messageId: clean(mail.messageId) ?? null,
    chain: [...new Set([...references, ...inReplyTo].map(storableText))],
    from: from?.address ? { address: storableText(from.address.toLowerCase()), name: clean(from.name) || null } : null,
    recipients: [...new Set([...addresses(mail.to), ...addresses(mail.cc), ...deliveredTo].map(storableText))],
    subject: clean(mail.subject) ?? null,
    text: storableText(mail.text ?? '').trim(),
    attachments: mail.attachments.map((a) => ({ name: storableText(a.filename ?? 'attachment'), contentType: storableText(a.contentType), data: a.content })),
  };
}
