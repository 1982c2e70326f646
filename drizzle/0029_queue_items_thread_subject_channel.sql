ALTER TABLE "queue_items" ADD COLUMN "subject" text;--> statement-breakpoint
ALTER TABLE "queue_items" ADD COLUMN "channel" text DEFAULT 'web' NOT NULL;