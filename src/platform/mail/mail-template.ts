import type { MailMessage } from './mail.service.js';

/** A piece of a paragraph: text (user-chosen text included, escaped in the HTML part) or a link. */
export type MailPart = string | { href: string; label?: string };
export type MailParagraph = MailPart | readonly MailPart[];

export interface MailTemplate {
  to: string;
  subject: string;
  /** The body, paragraph by paragraph; the plain-text part and the HTML part are both made from it. */
  paragraphs: readonly MailParagraph[];
  from?: string;
  headers?: Record<string, string>;
  /** It carries a code or a link that signs in or grants access: see MailMessage.sensitive. */
  sensitive?: boolean;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: nothing in it can open a tag, an attribute or an entity. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * A value for a mail header (subject, sender, threading ids): line breaks and other control
 * characters become one space, so user-chosen text (an org name in a subject) cannot start a
 * header of its own.
 */
export function headerSafe(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ').trim();
}

const isWebLink = (href: string) => /^https?:\/\//i.test(href);

function partText(part: MailPart): string {
  if (typeof part === 'string') return part;
  return part.label ? `${part.label}: ${part.href}` : part.href;
}

function partHtml(part: MailPart): string {
  if (typeof part === 'string') return escapeHtml(part).replace(/\r?\n/g, '<br>');
  if (!isWebLink(part.href)) return escapeHtml(partText(part));
  return `<a href="${escapeHtml(part.href)}">${escapeHtml(part.label ?? part.href)}</a>`;
}

const partsOf = (p: MailParagraph): readonly MailPart[] => (Array.isArray(p) ? (p as readonly MailPart[]) : [p as MailPart]);

/**
 * The one way a mail is written: a plain-text part and an HTML part from the same paragraphs,
 * every piece of text escaped in the HTML (names, org names and other user-chosen text arrive
 * as text, never as markup), and the headers made safe.
 */
export function composeMail(template: MailTemplate): MailMessage {
  const text = template.paragraphs.map((p) => partsOf(p).map(partText).join('')).join('\n\n');
  const body = template.paragraphs.map((p) => `<p>${partsOf(p).map(partHtml).join('')}</p>`).join('\n');
  const subject = headerSafe(template.subject);
  const html = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>\n${body}\n</body></html>`;
  return {
    to: headerSafe(template.to),
    subject,
    text,
    html,
    ...(template.from !== undefined ? { from: headerSafe(template.from) } : {}),
    ...(template.headers ? { headers: Object.fromEntries(Object.entries(template.headers).map(([k, v]) => [k, headerSafe(v)])) } : {}),
    ...(template.sensitive ? { sensitive: true } : {}),
  };
}
