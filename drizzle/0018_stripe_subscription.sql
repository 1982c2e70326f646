ALTER TABLE "billing_accounts" ADD COLUMN "provider_subscription_id" text;--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD COLUMN "provider_subscription_status" text;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_accounts_provider_customer_key" ON "billing_accounts" USING btree ("provider","provider_customer_id");