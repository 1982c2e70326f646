CREATE TABLE "channel_reply_targets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"message_key" text NOT NULL,
	"target" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "channel_reply_targets_message" ON "channel_reply_targets" USING btree ("conversation_id","message_key");--> statement-breakpoint
CREATE INDEX "channel_reply_targets_latest_idx" ON "channel_reply_targets" USING btree ("conversation_id","created_at");