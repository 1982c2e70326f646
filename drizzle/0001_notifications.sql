CREATE TABLE "app_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"recipient_user_id" text NOT NULL,
	"event_type" varchar(100) NOT NULL,
	"title" text,
	"body" text,
	"meta" jsonb,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "app_notifications_recipient_user_id_idx" ON "app_notifications" USING btree ("recipient_user_id");--> statement-breakpoint
CREATE INDEX "app_notifications_created_at_idx" ON "app_notifications" USING btree ("created_at");