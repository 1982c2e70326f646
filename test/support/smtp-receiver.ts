import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every mail received, parsed, in the order the server took them. */
  received: ParsedMail[];
  /** Resolves with `received` once it holds at least `count` mails. */
  delivered(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (no TLS, no auth) that keeps every mail it receives. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ParsedMail[] = [];
  // Parsed one after the other, so `received` keeps the order the mails arrived in.
  let parsing = Promise.resolve();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        parsing = parsing.then(async () => void received.push(await simpleParser(raw)));
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    received,
    async delivered(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails through SMTP, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text part of every mail received, in order. */
export function smtpTexts(receiver: SmtpReceiver): string[] {
  return receiver.received.map((mail) => mail.text ?? '');
}
