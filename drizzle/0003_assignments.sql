CREATE TABLE "org_specialist_assignments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"specialist_id" uuid NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"monthly_rate" numeric(10, 2),
	"override_reason" text,
	"rate_effective_from" date,
	"rate_effective_until" date,
	"email_alias" text NOT NULL,
	"mailbox_user_id" text,
	"mailbox_provisioned_at" timestamp with time zone,
	"mailbox_suspended_at" timestamp with time zone,
	"mailbox_archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"unassigned_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "osa_rate_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"assignment_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"monthly_rate" numeric(10, 2),
	"override_reason" text,
	"rate_effective_from" date,
	"rate_effective_until" date,
	"changed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "org_specialist_assignments" ADD CONSTRAINT "org_specialist_assignments_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_specialist_assignments" ADD CONSTRAINT "org_specialist_assignments_specialist_id_specialists_id_fk" FOREIGN KEY ("specialist_id") REFERENCES "public"."specialists"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "osa_rate_history" ADD CONSTRAINT "osa_rate_history_assignment_id_org_specialist_assignments_id_fk" FOREIGN KEY ("assignment_id") REFERENCES "public"."org_specialist_assignments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "osa_one_primary_per_org" ON "org_specialist_assignments" USING btree ("org_id") WHERE "org_specialist_assignments"."is_primary" and "org_specialist_assignments"."unassigned_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "osa_org_specialist_active" ON "org_specialist_assignments" USING btree ("org_id","specialist_id") WHERE "org_specialist_assignments"."unassigned_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "osa_email_alias_active" ON "org_specialist_assignments" USING btree ("email_alias") WHERE "org_specialist_assignments"."unassigned_at" is null;--> statement-breakpoint
CREATE INDEX "osa_org_idx" ON "org_specialist_assignments" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "osa_specialist_idx" ON "org_specialist_assignments" USING btree ("specialist_id");--> statement-breakpoint
CREATE INDEX "osa_rate_history_assignment_idx" ON "osa_rate_history" USING btree ("assignment_id","created_at");