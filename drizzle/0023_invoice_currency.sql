DROP INDEX "invoices_org_period_key";--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_org_period_currency_key" ON "invoices" USING btree ("org_id","period","currency");