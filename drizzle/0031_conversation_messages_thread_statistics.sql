-- A thread belongs to one org, so a message's conversation decides its org. Without this the planner multiplies the
-- two filters' selectivities, takes a thread for a handful of rows, and reads a turn's history by a bitmap over the
-- whole thread and a sort (its cost grows with the thread) instead of the thread index's newest entries.
CREATE STATISTICS IF NOT EXISTS "conversation_messages_conversation_org" (dependencies) ON "conversation_id", "org_id" FROM "conversation_messages";--> statement-breakpoint
ANALYZE "conversation_messages";
