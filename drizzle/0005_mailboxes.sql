CREATE TABLE "hosted_mailboxes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"address" text NOT NULL,
	"display_name" text NOT NULL,
	"org_id" uuid NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "mailbox_provisioning_disabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "org_specialist_assignments" ADD COLUMN "mailbox_requested_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "hosted_mailboxes_address_live" ON "hosted_mailboxes" USING btree ("address") WHERE "hosted_mailboxes"."status" <> 'deleted';