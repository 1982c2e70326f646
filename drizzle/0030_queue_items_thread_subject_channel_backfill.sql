-- The items raised before 0029 take their thread's subject and channel (neither changes once the thread is open).
UPDATE "queue_items" AS q SET "subject" = c."subject", "channel" = c."channel" FROM "conversations" AS c WHERE c."id" = q."conversation_id";
