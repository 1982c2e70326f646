CREATE TABLE "channel_bindings" (
	"channel" text NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"integration_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	CONSTRAINT "channel_bindings_channel_kind_value_pk" PRIMARY KEY("channel","kind","value")
);
--> statement-breakpoint
CREATE TABLE "channel_threads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"thread_key" text NOT NULL,
	"conversation_id" uuid NOT NULL,
	"reply_target" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"engaged_until" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_artifacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"message_id" uuid,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbound_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"channel" text NOT NULL,
	"event_key" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"org_id" uuid,
	"integration_id" uuid,
	"body" text NOT NULL,
	"meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reason" text,
	"conversation_id" uuid,
	"message_id" uuid,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"received_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "org_integrations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"external_id" text,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets_sealed" text,
	"secrets_key_id" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbound_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"target" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"content" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"claimed_until" timestamp with time zone,
	"last_error" text,
	"external_id" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "headers" jsonb;--> statement-breakpoint
ALTER TABLE "channel_bindings" ADD CONSTRAINT "channel_bindings_integration_id_org_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."org_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_integrations" ADD CONSTRAINT "org_integrations_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_bindings_integration_idx" ON "channel_bindings" USING btree ("integration_id");--> statement-breakpoint
CREATE UNIQUE INDEX "channel_threads_key" ON "channel_threads" USING btree ("org_id","channel","thread_key");--> statement-breakpoint
CREATE INDEX "channel_threads_conversation_idx" ON "channel_threads" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "conversation_artifacts_conversation_idx" ON "conversation_artifacts" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_events_key" ON "inbound_events" USING btree ("channel","event_key");--> statement-breakpoint
CREATE INDEX "inbound_events_open_idx" ON "inbound_events" USING btree ("received_at") WHERE "inbound_events"."status" in ('queued', 'processing');--> statement-breakpoint
CREATE INDEX "inbound_events_quarantine_idx" ON "inbound_events" USING btree ("received_at") WHERE "inbound_events"."status" = 'quarantined';--> statement-breakpoint
CREATE INDEX "inbound_events_org_idx" ON "inbound_events" USING btree ("org_id","channel","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "org_integrations_org_channel" ON "org_integrations" USING btree ("org_id","channel");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_messages_once" ON "outbound_messages" USING btree ("message_id","channel");--> statement-breakpoint
CREATE INDEX "outbound_messages_due_idx" ON "outbound_messages" USING btree ("next_attempt_at") WHERE "outbound_messages"."status" in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "outbound_messages_org_idx" ON "outbound_messages" USING btree ("org_id","channel","created_at");