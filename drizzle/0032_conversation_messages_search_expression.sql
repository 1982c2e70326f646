DROP INDEX "conversation_messages_search_idx";--> statement-breakpoint
CREATE INDEX "conversation_messages_search_idx" ON "conversation_messages" USING gin (to_tsvector('english', "content"));--> statement-breakpoint
ALTER TABLE "conversation_messages" DROP COLUMN "search";