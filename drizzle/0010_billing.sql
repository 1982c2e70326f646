CREATE TABLE "billing_accounts" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_customer_id" text NOT NULL,
	"payment_method" jsonb,
	"payment_state" text DEFAULT 'ok' NOT NULL,
	"past_due_since" timestamp with time zone,
	"grace_ends_at" timestamp with time zone,
	"last_failure_reason" text,
	"suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"assignment_id" uuid NOT NULL,
	"specialist_id" uuid NOT NULL,
	"provider_subscription_id" text NOT NULL,
	"plan" text NOT NULL,
	"starts_on" date NOT NULL,
	"ends_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_webhook_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"org_id" uuid,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cost_reconciliations" (
	"day" date NOT NULL,
	"ledger_micro_usd" bigint NOT NULL,
	"tracing_micro_usd" bigint,
	"drift_micro_usd" bigint,
	"drift_percent" real,
	"alerted" boolean DEFAULT false NOT NULL,
	"error" text,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cost_reconciliations_day_pk" PRIMARY KEY("day")
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"invoice_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"assignment_id" uuid NOT NULL,
	"specialist_id" uuid NOT NULL,
	"description" text NOT NULL,
	"days_active" integer NOT NULL,
	"days_in_month" integer NOT NULL,
	"amount_cents" bigint NOT NULL,
	"currency" text NOT NULL,
	"periods" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"period" text NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"total_cents" bigint NOT NULL,
	"provider_invoice_id" text,
	"issued_at" timestamp with time zone NOT NULL,
	"due_on" date NOT NULL,
	"paid_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "llm_cost_daily" (
	"day" date NOT NULL,
	"org_id" uuid NOT NULL,
	"osa_id" uuid,
	"purpose" text NOT NULL,
	"cost_micro_usd" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "llm_cost_rollup_days" (
	"day" date PRIMARY KEY NOT NULL,
	"rolled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "specialist_rate_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"specialist_id" uuid NOT NULL,
	"base_rate" numeric(10, 2) NOT NULL,
	"currency" text NOT NULL,
	"changed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orgs" ADD COLUMN "activated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_subscriptions" ADD CONSTRAINT "billing_subscriptions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "specialist_rate_history" ADD CONSTRAINT "specialist_rate_history_specialist_id_specialists_id_fk" FOREIGN KEY ("specialist_id") REFERENCES "public"."specialists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_accounts_grace_idx" ON "billing_accounts" USING btree ("payment_state","grace_ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_subscriptions_assignment_key" ON "billing_subscriptions" USING btree ("assignment_id");--> statement-breakpoint
CREATE INDEX "billing_subscriptions_org_idx" ON "billing_subscriptions" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_idx" ON "invoice_lines" USING btree ("invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_org_period_key" ON "invoices" USING btree ("org_id","period");--> statement-breakpoint
CREATE INDEX "invoices_status_idx" ON "invoices" USING btree ("status");--> statement-breakpoint
CREATE INDEX "llm_cost_daily_day_idx" ON "llm_cost_daily" USING btree ("day");--> statement-breakpoint
CREATE INDEX "llm_cost_daily_org_day_idx" ON "llm_cost_daily" USING btree ("org_id","day");--> statement-breakpoint
CREATE INDEX "specialist_rate_history_specialist_idx" ON "specialist_rate_history" USING btree ("specialist_id","created_at");--> statement-breakpoint
UPDATE "orgs" SET "activated_at" = coalesce("trial_started_at", "created_at") WHERE "status" IN ('active', 'trial_ending', 'suspended');--> statement-breakpoint
INSERT INTO "specialist_rate_history" ("specialist_id", "base_rate", "currency", "created_at") SELECT "id", ("monthly_rate_config"->>'base_rate')::numeric, coalesce("monthly_rate_config"->>'currency', 'USD'), "created_at" FROM "specialists";
