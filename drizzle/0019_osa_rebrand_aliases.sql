CREATE TABLE "osa_rebrand_aliases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"assignment_id" uuid NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "osa_rebrand_aliases" ADD CONSTRAINT "osa_rebrand_aliases_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "osa_rebrand_aliases" ADD CONSTRAINT "osa_rebrand_aliases_assignment_id_org_specialist_assignments_id_fk" FOREIGN KEY ("assignment_id") REFERENCES "public"."org_specialist_assignments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "osa_rebrand_aliases_address" ON "osa_rebrand_aliases" USING btree ("address");--> statement-breakpoint
CREATE INDEX "osa_rebrand_aliases_assignment_idx" ON "osa_rebrand_aliases" USING btree ("assignment_id");