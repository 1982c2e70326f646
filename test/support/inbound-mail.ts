import { createHmac, randomUUID } from 'node:crypto';

/** A 2x2 PNG (red, green / blue, white): small, and a real image a browser decodes. */
export const SAMPLE_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAAMIM/////w8AH+4F+7C4l8kAAAAASUVORK5CYII=', 'base64');
/** A minimal PDF document. */
export const SAMPLE_PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

export interface MailFile {
  name: string;
  type: string;
  data: Buffer;
}

/** An RFC 822 mail from a client with files, base64 in multipart/mixed parts as mail clients send them. */
export function mailWithAttachments(mail: { to: string; messageId: string; subject: string; text: string; files: MailFile[] }): string {
  const boundary = `b-${randomUUID()}`;
  return [
    'From: Carol Client <carol@customer.example.com>',
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Message-ID: ${mail.messageId}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    mail.text,
    ...mail.files.flatMap((f) => [
      `--${boundary}`,
      `Content-Type: ${f.type}; name="${f.name}"`,
      'Content-Transfer-Encoding: base64',
      `Content-Disposition: attachment; filename="${f.name}"`,
      '',
      ...(f.data.toString('base64').match(/.{1,76}/g) ?? []),
    ]),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** Posts a mail to the email inbound route as the provider does (`{ rawMessage }`, X-Email-Signature); the status. */
export async function postInboundMail(baseUrl: string, signingSecret: string, rfc822: string): Promise<number> {
  const raw = JSON.stringify({ rawMessage: Buffer.from(rfc822).toString('base64') });
  const signature = `sha256=${createHmac('sha256', signingSecret).update(raw).digest('hex')}`;
  const res = await fetch(`${baseUrl}/api/channels/email/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-email-signature': signature }, body: raw });
  await res.arrayBuffer();
  return res.status;
}
