-- `open` is the legacy alias of `pending` (spec 3.1): stored rows keep the canonical value before the CHECK.
UPDATE "conversations" SET "status" = 'pending' WHERE "status" = 'open';--> statement-breakpoint
UPDATE "queue_items" SET "status" = 'pending' WHERE "status" = 'open';--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "llm_cost_daily" ADD CONSTRAINT "llm_cost_daily_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_bindings" ADD CONSTRAINT "channel_bindings_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_reply_targets" ADD CONSTRAINT "channel_reply_targets_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_threads" ADD CONSTRAINT "channel_threads_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_events" ADD CONSTRAINT "inbound_events_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD CONSTRAINT "outbound_messages_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_artifacts" ADD CONSTRAINT "conversation_artifacts_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_revisions" ADD CONSTRAINT "message_revisions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queue_items" ADD CONSTRAINT "queue_items_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosted_mailboxes" ADD CONSTRAINT "hosted_mailboxes_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "osa_rate_history" ADD CONSTRAINT "osa_rate_history_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoice_lines_org_idx" ON "invoice_lines" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "channel_bindings_org_idx" ON "channel_bindings" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "channel_reply_targets_org_idx" ON "channel_reply_targets" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "conversation_artifacts_org_idx" ON "conversation_artifacts" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "conversation_turns_org_idx" ON "conversation_turns" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "message_revisions_org_idx" ON "message_revisions" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "slug_reservations_org_idx" ON "slug_reservations" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "hosted_mailboxes_org_idx" ON "hosted_mailboxes" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "osa_rate_history_org_idx" ON "osa_rate_history" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "osa_rebrand_aliases_org_idx" ON "osa_rebrand_aliases" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "audit_log_org_idx" ON "audit_log" USING btree ("org_id","created_at");--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_payment_state_check" CHECK ("billing_accounts"."payment_state" in ('ok', 'past_due', 'suspended'));--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_status_check" CHECK ("invoices"."status" in ('open', 'paid', 'payment_failed', 'void'));--> statement-breakpoint
ALTER TABLE "provider_invoices" ADD CONSTRAINT "provider_invoices_status_check" CHECK ("provider_invoices"."status" in ('open', 'paid', 'payment_failed'));--> statement-breakpoint
ALTER TABLE "inbound_events" ADD CONSTRAINT "inbound_events_status_check" CHECK ("inbound_events"."status" in ('queued', 'processing', 'done', 'ignored', 'quarantined', 'failed'));--> statement-breakpoint
ALTER TABLE "org_integrations" ADD CONSTRAINT "org_integrations_verification_status_check" CHECK ("org_integrations"."verification_status" in ('pending', 'verified'));--> statement-breakpoint
ALTER TABLE "outbound_messages" ADD CONSTRAINT "outbound_messages_status_check" CHECK ("outbound_messages"."status" in ('pending', 'sending', 'sent', 'failed', 'held'));--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_status_check" CHECK ("conversation_turns"."status" in ('queued', 'running', 'done', 'failed'));--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_status_check" CHECK ("conversations"."status" in ('pending', 'awaiting_client', 'resolved', 'snoozed'));--> statement-breakpoint
ALTER TABLE "queue_items" ADD CONSTRAINT "queue_items_status_check" CHECK ("queue_items"."status" in ('pending', 'awaiting_client', 'resolved', 'snoozed'));--> statement-breakpoint
ALTER TABLE "orgs" ADD CONSTRAINT "orgs_status_check" CHECK ("orgs"."status" in ('pending_am_setup', 'pending_specialist_assignment', 'pending_client_confirmation', 'active', 'trial_ending', 'suspended', 'deactivated'));--> statement-breakpoint
ALTER TABLE "hosted_mailboxes" ADD CONSTRAINT "hosted_mailboxes_status_check" CHECK ("hosted_mailboxes"."status" in ('active', 'suspended', 'deleted'));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_status_check" CHECK ("users"."status" in ('active', 'suspended', 'deactivated'));