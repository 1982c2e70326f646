ALTER TABLE "mail_outbox" ADD COLUMN "sensitive" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "erased_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "mail_outbox_secrets_idx" ON "mail_outbox" USING btree ("created_at") WHERE "mail_outbox"."sensitive" and "mail_outbox"."erased_at" is null;