import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { DbService, type PreparedStatement } from '../../platform/db/db.service.js';
import { appNotifications, type AppNotificationRow } from './notifications.tables.js';

export interface NewNotification {
  recipientUserId: string;
  eventType: string;
  title: string | null;
  body: string | null;
  meta: Record<string, unknown> | null;
}

/** Notifications are per user, not per org: every read is scoped by the recipient. */
@Injectable()
export class NotificationsRepository {
  /** Every notification is one insert: a prepared statement. */
  private readonly insertOne: PreparedStatement<AppNotificationRow[], NewNotification & { id: string }>;

  constructor(private readonly dbService: DbService) {
    const p = sql.placeholder;
    this.insertOne = dbService.prepared('app_notifications_insert', (db) =>
      db
        .insert(appNotifications)
        .values({ id: p('id'), recipientUserId: p('recipientUserId'), eventType: p('eventType'), title: p('title'), body: p('body'), meta: p('meta') })
        .returning(),
    );
  }

  async insert(values: NewNotification): Promise<AppNotificationRow> {
    // Time-ordered ids: rows created in the same instant still list in the order they were made.
    const [row] = await this.insertOne({ id: uuidv7(), ...values });
    return row!;
  }

  /** Newest first. */
  async listForRecipient(recipientUserId: string, page: { limit: number; offset: number }): Promise<AppNotificationRow[]> {
    return this.dbService.db
      .select()
      .from(appNotifications)
      .where(eq(appNotifications.recipientUserId, recipientUserId))
      .orderBy(desc(appNotifications.createdAt), desc(appNotifications.id))
      .limit(page.limit)
      .offset(page.offset);
  }

  async findById(id: string): Promise<AppNotificationRow | undefined> {
    const [row] = await this.dbService.db.select().from(appNotifications).where(eq(appNotifications.id, id));
    return row;
  }

  /** Sets read_at on the first call only; later calls return the row unchanged. */
  async markRead(id: string): Promise<AppNotificationRow | undefined> {
    const [row] = await this.dbService.db
      .update(appNotifications)
      .set({ readAt: sql`coalesce(${appNotifications.readAt}, now())` })
      .where(eq(appNotifications.id, id))
      .returning();
    return row;
  }

  /** Marks every unread notification of one recipient read (read_at set once); the count changed. */
  async markAllRead(recipientUserId: string): Promise<number> {
    const rows = await this.dbService.db
      .update(appNotifications)
      .set({ readAt: sql`now()` })
      .where(and(eq(appNotifications.recipientUserId, recipientUserId), isNull(appNotifications.readAt)))
      .returning({ id: appNotifications.id });
    return rows.length;
  }
}
