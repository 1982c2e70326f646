import { count } from 'drizzle-orm';
import type { Db } from '../../platform/db/database.js';
import { inOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { conversationMessages, conversations, conversationTurns, type ConversationRow, type MessageRow } from './conversations.tables.js';

// Dated history written as rows (the demo org's past), in the org of the scope: no turn runs, no event is emitted.

export async function countOrgConversations(db: Db, scope: OrgScope): Promise<number> {
  const [row] = await db.select({ n: count() }).from(conversations).where(inOrg(conversations.orgId, scope));
  return row?.n ?? 0;
}

export async function insertDatedConversation(db: Db, scope: OrgScope, values: Omit<typeof conversations.$inferInsert, 'orgId'>): Promise<ConversationRow> {
  const [row] = await db
    .insert(conversations)
    .values({ ...values, orgId: scope.orgId })
    .returning();
  return row!;
}

export interface DatedExchange {
  conversationId: string;
  /** The client's user on the web; null for a channel's sender. */
  clientId: string | null;
  specialistId: string;
  question: string;
  answer: string;
  askedAt: Date;
  answeredAt: Date;
  /** A channel message's key (web messages have none). */
  idempotencyKey?: string;
}

/** The client's message, its turn done, and the Specialist's reply to it. Returns the client's message. */
export async function insertDatedExchange(db: Db, scope: OrgScope, x: DatedExchange): Promise<MessageRow> {
  const { conversationId } = x;
  const { orgId } = scope;
  const [asked] = await db
    .insert(conversationMessages)
    .values({ conversationId, orgId, role: 'client', senderId: x.clientId, content: x.question, createdAt: x.askedAt, ...(x.idempotencyKey !== undefined && { idempotencyKey: x.idempotencyKey }) })
    .returning();
  await db.insert(conversationTurns).values({ messageId: asked!.id, conversationId, orgId, status: 'done', attempts: 1, createdAt: x.askedAt, updatedAt: x.answeredAt });
  await db.insert(conversationMessages).values({ conversationId, orgId, role: 'specialist', senderId: x.specialistId, content: x.answer, replyToMessageId: asked!.id, createdAt: x.answeredAt });
  return asked!;
}
