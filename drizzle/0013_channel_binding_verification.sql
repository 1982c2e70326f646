ALTER TABLE "channel_bindings" DROP CONSTRAINT "channel_bindings_channel_kind_value_pk";--> statement-breakpoint
ALTER TABLE "channel_bindings" ADD CONSTRAINT "channel_bindings_channel_kind_value_integration_id_pk" PRIMARY KEY("channel","kind","value","integration_id");--> statement-breakpoint
ALTER TABLE "channel_bindings" ADD COLUMN "verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "org_integrations" ADD COLUMN "verification_status" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_integrations" ADD COLUMN "verification_code" text DEFAULT translate(upper(substr(md5(random()::text), 1, 8)), '01', 'GH');--> statement-breakpoint
ALTER TABLE "org_integrations" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_bindings_verified" ON "channel_bindings" USING btree ("channel","kind","value") WHERE "channel_bindings"."verified";