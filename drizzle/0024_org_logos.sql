CREATE TABLE "org_logos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_logos_org_key" UNIQUE("org_id")
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "logo_id" uuid;--> statement-breakpoint
ALTER TABLE "org_logos" ADD CONSTRAINT "org_logos_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;