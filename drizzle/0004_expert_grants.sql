CREATE TABLE "expert_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"expert_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"specialist_ids" uuid[] DEFAULT '{}' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "expert_grants" ADD CONSTRAINT "expert_grants_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expert_grants" ADD CONSTRAINT "expert_grants_expert_id_users_id_fk" FOREIGN KEY ("expert_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "expert_grants_org_idx" ON "expert_grants" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "expert_grants_expert_idx" ON "expert_grants" USING btree ("expert_id");