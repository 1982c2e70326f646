import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { systemNow } from '../clock/clock.js';
import type { Transporter } from 'nodemailer';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { DbService } from '../db/db.service.js';
import { logger } from '../observability/logger.js';
import { QueueService } from '../queue/queue.service.js';
import { SchedulerService } from '../queue/scheduler.service.js';
import { mailOutbox, type MailOutboxRow } from './mail.tables.js';

declare module '../queue/jobs.js' {
  interface JobMap {
    'mail.deliver': { outboxId: string };
  }
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Default MAIL_FROM. */
  from?: string;
  /** Threading headers of a reply: Message-ID, In-Reply-To, References. */
  headers?: Record<string, string>;
  /**
   * The mail carries a secret (a sign-in, reset or onboarding code, an invite or accept link):
   * its subject's codes, text and html are erased once sent, and kept at most 24 hours unsent
   * (the development outbox).
   */
  sensitive?: boolean;
}

/** How long a sensitive mail's body is kept when it is not sent (the development outbox is read by people). */
export const SECRET_MAIL_RETENTION_MS = 24 * 60 * 60_000;
const ERASE_EVERY_MS = 10 * 60_000;

/** What is left of a sensitive mail: no body, and no run of digits (a code) in its subject. */
const erased = (at: Date) => ({
  text: '',
  html: null,
  subject: sql`regexp_replace(${mailOutbox.subject}, '[0-9]{4,}', '******', 'g')`,
  erasedAt: at,
});

/**
 * Outgoing mail. Every message is written to the outbox in the caller's transaction, so a mail
 * is sent exactly when the business write commits. Without SMTP_URL the outbox is the delivery
 * (listed at /api/dev/mail outside production); with it a queued job sends through nodemailer,
 * and a periodic sweep re-queues anything left unsent. A sensitive mail's secret lives until it is
 * sent, and never longer than SECRET_MAIL_RETENTION_MS.
 */
@Injectable()
export class MailService implements OnModuleInit {
  /** With SMTP_URL only: nodemailer is loaded while the app starts then, and not at all without it. */
  private transport?: Transporter;

  constructor(
    private readonly dbService: DbService,
    private readonly queue: QueueService,
    private readonly scheduler: SchedulerService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get delivers(): boolean {
    return Boolean(this.config.smtpUrl);
  }

  async onModuleInit(): Promise<void> {
    this.scheduler.every('mail.erase-secrets', ERASE_EVERY_MS, () => this.eraseExpiredSecrets().then(() => undefined));
    if (!this.config.smtpUrl) return;
    const { default: nodemailer } = await import('nodemailer');
    this.transport = nodemailer.createTransport(this.config.smtpUrl);
    this.queue.handle('mail.deliver', ({ outboxId }) => this.deliver(outboxId), { retryLimit: 8, retryDelaySeconds: 30, retryBackoff: true });
    this.scheduler.every('mail.resend-stuck', 5 * 60_000, () => this.requeueStuck());
  }

  async send(message: MailMessage): Promise<void> {
    const [row] = await this.dbService.db
      .insert(mailOutbox)
      .values({
        to: message.to.toLowerCase(),
        subject: message.subject,
        text: message.text,
        html: message.html ?? null,
        fromAddress: message.from ?? null,
        headers: message.headers ?? null,
        sensitive: message.sensitive ?? false,
      })
      .returning({ id: mailOutbox.id });
    if (!this.delivers) return;
    if (this.dbService.inTransaction && this.queue.started) {
      // The job commits with its row (an outbox): mails written one transaction after another are
      // delivered in that order, whichever worker wrote them (held mail released by several at once).
      await this.queue.sendInTransaction('mail.deliver', { outboxId: row!.id }, { singletonKey: row!.id });
      return;
    }
    this.dbService.afterCommit(() => this.queue.send('mail.deliver', { outboxId: row!.id }, { singletonKey: row!.id }));
  }

  async list(filter: { to?: string; limit: number }): Promise<MailOutboxRow[]> {
    return this.dbService.db
      .select()
      .from(mailOutbox)
      .where(filter.to ? eq(mailOutbox.to, filter.to.toLowerCase()) : undefined)
      .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
      .limit(filter.limit);
  }

  private async deliver(outboxId: string): Promise<void> {
    const [row] = await this.dbService.db.select().from(mailOutbox).where(eq(mailOutbox.id, outboxId));
    // An erased mail has nothing left to send (it waited past its 24 hours).
    if (!row || row.sentAt || row.erasedAt) return;
    try {
      await this.transport!.sendMail({
        from: row.fromAddress ?? this.config.mailFrom,
        to: row.to,
        subject: row.subject,
        text: row.text,
        html: row.html ?? undefined,
        messageId: row.headers?.['Message-ID'],
        inReplyTo: row.headers?.['In-Reply-To'],
        references: row.headers?.References,
      });
      const sentAt = new Date();
      await this.dbService.db
        .update(mailOutbox)
        .set({ sentAt, attempts: sql`${mailOutbox.attempts} + 1`, ...(row.sensitive ? erased(sentAt) : {}) })
        .where(eq(mailOutbox.id, outboxId));
    } catch (err) {
      await this.dbService.db
        .update(mailOutbox)
        .set({ attempts: sql`${mailOutbox.attempts} + 1`, lastError: (err as Error).message.slice(0, 500) })
        .where(eq(mailOutbox.id, outboxId));
      logger.warn({ outboxId, err: (err as Error).message }, 'mail delivery failed, will retry');
      throw err;
    }
  }

  private async requeueStuck(): Promise<void> {
    const stuck = await this.dbService.db
      .select({ id: mailOutbox.id })
      .from(mailOutbox)
      .where(and(isNull(mailOutbox.sentAt), isNull(mailOutbox.erasedAt), lt(mailOutbox.createdAt, new Date(Date.now() - 10 * 60_000)), lt(mailOutbox.attempts, 20)))
      .limit(500);
    for (const { id } of stuck) await this.queue.send('mail.deliver', { outboxId: id }, { singletonKey: id });
  }

  /**
   * Erases the sensitive mails kept past SECRET_MAIL_RETENTION_MS (unsent: the outbox, or SMTP
   * failing); answers how many. The retention is measured on the system clock, as the database
   * stamps created_at: business time moved forward (trials, expiries) erases nothing early.
   */
  async eraseExpiredSecrets(now: Date = systemNow()): Promise<number> {
    const rows = await this.dbService.db
      .update(mailOutbox)
      .set(erased(now))
      .where(and(eq(mailOutbox.sensitive, true), isNull(mailOutbox.erasedAt), lt(mailOutbox.createdAt, new Date(now.getTime() - SECRET_MAIL_RETENTION_MS))))
      .returning({ id: mailOutbox.id });
    return rows.length;
  }
}
