CREATE TABLE "llm_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"osa_id" uuid,
	"conversation_id" uuid,
	"message_id" uuid,
	"purpose" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cost_micro_usd" bigint DEFAULT 0 NOT NULL,
	"latency_ms" integer DEFAULT 0 NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "org_tool_permissions" (
	"org_id" uuid NOT NULL,
	"tool_name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_tool_permissions_org_id_tool_name_pk" PRIMARY KEY("org_id","tool_name")
);
--> statement-breakpoint
CREATE TABLE "client_briefs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"conversation_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"role" text NOT NULL,
	"sender_id" uuid,
	"content" text NOT NULL,
	"is_internal" boolean DEFAULT false NOT NULL,
	"reply_to_message_id" uuid,
	"idempotency_key" text,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"corrected_at" timestamp with time zone,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "content")) STORED
);
--> statement-breakpoint
CREATE TABLE "conversation_turns" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"conversation_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"assignment_id" uuid NOT NULL,
	"specialist_id" uuid NOT NULL,
	"subject" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"channel" text DEFAULT 'web' NOT NULL,
	"resolved_at" timestamp with time zone,
	"snooze_until" timestamp with time zone,
	"assigned_expert_id" uuid,
	"auto_responded" boolean DEFAULT false NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_message_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_revisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"previous_content" text NOT NULL,
	"corrected_by" uuid NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "queue_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"specialist_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"note" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"sla_deadline" timestamp with time zone,
	"deferred_until" timestamp with time zone,
	"assigned_expert_id" uuid,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "llm_runs" ADD CONSTRAINT "llm_runs_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_tool_permissions" ADD CONSTRAINT "org_tool_permissions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_briefs" ADD CONSTRAINT "client_briefs_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_message_id_conversation_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."conversation_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_revisions" ADD CONSTRAINT "message_revisions_message_id_conversation_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."conversation_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queue_items" ADD CONSTRAINT "queue_items_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "llm_runs_org_created_idx" ON "llm_runs" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "llm_runs_osa_created_idx" ON "llm_runs" USING btree ("osa_id","created_at");--> statement-breakpoint
CREATE INDEX "llm_runs_created_idx" ON "llm_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "client_briefs_org_idx" ON "client_briefs" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "conversation_messages_thread_idx" ON "conversation_messages" USING btree ("conversation_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "conversation_messages_reply_once" ON "conversation_messages" USING btree ("reply_to_message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "conversation_messages_idempotency" ON "conversation_messages" USING btree ("conversation_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "conversation_messages_search_idx" ON "conversation_messages" USING gin ("search");--> statement-breakpoint
CREATE INDEX "conversation_messages_org_idx" ON "conversation_messages" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "conversation_turns_open_idx" ON "conversation_turns" USING btree ("status","claimed_until") WHERE "conversation_turns"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "conversations_org_last_idx" ON "conversations" USING btree ("org_id","last_message_at","id");--> statement-breakpoint
CREATE INDEX "conversations_snoozed_idx" ON "conversations" USING btree ("snooze_until") WHERE "conversations"."status" = 'snoozed';--> statement-breakpoint
CREATE INDEX "message_revisions_message_idx" ON "message_revisions" USING btree ("message_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "queue_items_conversation_idx" ON "queue_items" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "queue_items_status_updated_idx" ON "queue_items" USING btree ("status","updated_at","id");--> statement-breakpoint
CREATE INDEX "queue_items_org_idx" ON "queue_items" USING btree ("org_id","updated_at");