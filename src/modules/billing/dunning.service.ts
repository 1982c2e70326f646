import { Inject, Injectable } from '@nestjs/common';
import type { SQL, SQLWrapper } from 'drizzle-orm';
import type { BillingWebhookEvent, RecordPaymentInput } from '../../contracts/billing.js';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { Clock } from '../../platform/clock/clock.js';
import { billingConfig, type BillingConfig } from './billing.config.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { DurableDomainEvents } from '../../platform/events/domain-events.js';
import { EventBus } from '../../platform/events/event-bus.js';
import { OnDurableEvent } from '../../platform/events/on-event.decorator.js';
import { logger } from '../../platform/observability/logger.js';
import { jobScope, unscopedOrg, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { OrgsService, orgIdsInStatus, type OrgStatus } from '../orgs/index.js';
import { UsersService } from '../users/index.js';
import { BillingRepository, type NewProviderInvoice } from './billing.repository.js';
import { BillingService } from './billing.service.js';
import './billing.events.js';

/** The org statuses whose access gate is closed (spec 3.6): a suspended org, and a deactivated one. */
const GATE_CLOSED_STATUSES: readonly OrgStatus[] = ['suspended', 'deactivated'];

/** Org roles told of a payment failure with the assigned AM (spec 3.6, 6.2). */
export const BILLING_RESPONSIBLE_ROLES = ['owner', 'admin', 'billing'] as const;
const DAY_MS = 86_400_000;

/** `ignored`: an event for an org we do not know, or of a type the provider's webhook does not act on. */
export type PaymentEventOutcome = { ok: true; duplicate: boolean; ignored?: 'unknown_org' | 'event_type' };

/**
 * Dunning (spec 3.6, 6.2). `payment_failed` starts the grace period (BILLING_GRACE_DAYS) and tells
 * the assigned AM and the org's owners, admins and billing members; `payment_succeeded` clears it.
 * The access gate (a scheduled sweep) suspends an org whose grace period elapsed. The way back:
 * the payment that clears the dunning reactivates an org the gate suspended, at once.
 */
@Injectable()
export class DunningService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly billing: BillingService,
    private readonly orgs: OrgsService,
    private readonly users: UsersService,
    private readonly bus: EventBus,
    private readonly audit: AuditService,
    private readonly dbService: DbService,
    private readonly clock: Clock,
    @Inject(billingConfig.token) private readonly config: BillingConfig,
  ) {}

  /**
   * A provider event, once per event id: a replay answers and does nothing again. `providerInvoice`:
   * the provider's own invoice the event reports (Stripe), recorded in the same transaction before
   * its outcome applies (docs/billing.md "Our invoices and Stripe's").
   */
  async handleEvent(event: BillingWebhookEvent, actor?: Principal, providerInvoice?: NewProviderInvoice): Promise<PaymentEventOutcome> {
    const org = await this.orgs.findById(event.data.orgId);
    if (!org) {
      logger.warn({ eventId: event.id, orgId: event.data.orgId }, 'billing event for an unknown org ignored');
      return { ok: true, duplicate: false, ignored: 'unknown_org' };
    }
    const scope = unscopedOrg(org.id, 'the org a payment event names (a provider webhook or a superadmin recording a payment)');
    await this.billing.ensureAccount(scope, org);
    const fresh = await this.dbService.transaction(async () => {
      if (!(await this.repo.recordEvent(scope, event.id, event.type))) return false;
      if (providerInvoice) await this.repo.upsertProviderInvoice(scope, providerInvoice);
      if (event.type === 'payment_failed') await this.paymentFailed(scope, event.data.invoiceId, event.data.failureReason ?? null);
      else await this.paymentSucceeded(scope, event.data.invoiceId);
      return true;
    });
    if (fresh) {
      await this.audit.record({
        action: `billing.${event.type}`,
        userId: actor?.userId,
        resourceId: event.data.invoiceId ?? org.id,
        orgId: org.id,
        impersonatorId: actor?.impersonatorId,
        meta: { eventId: event.id, failureReason: event.data.failureReason, amount: event.data.amount, currency: event.data.currency },
      });
    }
    return { ok: true, duplicate: !fresh };
  }

  /** The default provider: a superadmin records a manual payment as paid or failed; the same path as the webhook. */
  async recordPayment(actor: Principal, invoiceId: string, input: RecordPaymentInput): Promise<PaymentEventOutcome> {
    const invoice = await this.repo.unscopedFindInvoiceById(invoiceId);
    if (!invoice) throw AppError.notFound('Invoice');
    return this.handleEvent(
      {
        id: `manual:${invoiceId}:${input.outcome}:${this.clock.now().getTime()}`,
        type: input.outcome === 'paid' ? 'payment_succeeded' : 'payment_failed',
        data: { orgId: invoice.orgId, invoiceId, amount: invoice.totalCents / 100, currency: invoice.currency, failureReason: input.reason },
      },
      actor,
    );
  }

  /**
   * Inside the event's transaction, which also writes the durable `billing.payment_failed` (its
   * notices are delivered by the job queue, whatever becomes of this process after the commit).
   * One failure is one notice: a provider invoice already failed (the same failure reported by
   * another event, or a retry of it) during the grace period tells no one again.
   */
  private async paymentFailed(scope: OrgScope, invoiceId: string | undefined, reason: string | null): Promise<void> {
    const orgId = scope.orgId;
    const now = this.clock.now();
    const account = (await this.repo.lockAccount(scope))!;
    const fresh = invoiceId ? await this.settleInvoice(scope, invoiceId, 'payment_failed', reason) : true;
    // A second failure during the grace period does not extend it.
    if (account.paymentState === 'ok') {
      await this.repo.updateAccount(scope, { paymentState: 'past_due', pastDueSince: now, graceEndsAt: new Date(now.getTime() + this.config.graceDays * DAY_MS), lastFailureReason: reason });
    } else {
      await this.repo.updateAccount(scope, { lastFailureReason: reason });
    }
    if (account.paymentState === 'ok' || fresh) await this.bus.emitDurable('billing.payment_failed', { orgId, invoiceId: invoiceId ?? null, reason });
  }

  /**
   * The invoice an event names takes its outcome: a provider invoice (then our invoice it settles
   * follows from all of its provider invoices), else ours by its provider id or our id. False when
   * the provider invoice already had this outcome.
   */
  private async settleInvoice(scope: OrgScope, ref: string, status: 'paid' | 'payment_failed', reason: string | null): Promise<boolean> {
    const theirs = await this.repo.lockProviderInvoice(scope, ref);
    if (theirs) {
      if (theirs.status === status) return false;
      await this.repo.updateProviderInvoice(scope, ref, { status, ...(status === 'paid' && { amountRemainingCents: 0 }) });
      if (theirs.invoiceId) await this.billing.settleFromProvider(scope, theirs.invoiceId, reason);
      return true;
    }
    const now = this.clock.now();
    const values = status === 'paid' ? { status, paidAt: now } : { status, failedAt: now, failureReason: reason };
    if (!(await this.repo.updateInvoiceByRef(scope, ref, values))) logger.warn({ orgId: scope.orgId, invoiceId: ref, status }, 'a payment event names an invoice the org does not have');
    return true;
  }

  private async paymentSucceeded(scope: OrgScope, invoiceId: string | undefined): Promise<void> {
    const orgId = scope.orgId;
    const account = (await this.repo.lockAccount(scope))!;
    if (invoiceId) await this.settleInvoice(scope, invoiceId, 'paid', null);
    await this.repo.updateAccount(scope, { paymentState: 'ok', pastDueSince: null, graceEndsAt: null, lastFailureReason: null, suspendedAt: null });
    // Only a suspension of ours is undone: the org goes back to active in the same transaction.
    if (account.suspendedAt && (await this.orgs.applyBillingTransition(orgId, 'payment_recovered'))) {
      await this.audit.record({ action: 'billing.org_reactivated', resourceId: orgId, orgId });
    }
  }

  /**
   * From the job queue, atomic: the owed notices (one durable event per recipient, best-effort per
   * recipient) are written with this job's completion, so a redelivered job tells no one twice.
   */
  @OnDurableEvent('billing.payment_failed', { atomic: true })
  async notifyFailure({ orgId, invoiceId, reason }: DurableDomainEvents['billing.payment_failed']): Promise<void> {
    const org = await this.orgs.findById(orgId);
    if (!org) return;
    const scope = jobScope({ orgId });
    const account = await this.repo.findAccount(scope);
    const members = await this.users.memberIdsWithRoles(scope, BILLING_RESPONSIBLE_ROLES);
    const recipients = new Set([...(org.assignedAmId ? [org.assignedAmId] : []), ...members]);
    const graceEnds = account?.graceEndsAt?.toISOString().slice(0, 10);
    const notice = {
      type: 'billing.payment_failed',
      title: 'Payment failed',
      message: `${org.legalName}: a payment failed${reason ? ` (${reason})` : ''}. Access is suspended on ${graceEnds ?? 'the end of the grace period'} unless it is paid.`,
      meta: { orgId, slug: org.slug, invoiceId: invoiceId ?? null, graceEndsAt: account?.graceEndsAt?.toISOString() ?? null },
    };
    for (const userId of recipients) await this.bus.emitDurable('notifications.owed', { userId, notice });
  }

  /**
   * The access gate (spec 3.2, 3.6), scheduled: an org whose grace period has elapsed becomes
   * `suspended`. Returns the orgs suspended by this run.
   */
  async runAccessGate(now: Date): Promise<string[]> {
    const suspended: string[] = [];
    for (const account of await this.repo.unscopedGraceElapsed(now)) {
      const done = await this.dbService.transaction(async () => {
        const current = await this.repo.lockAccount(jobScope(account));
        if (current?.paymentState !== 'past_due' || !current.graceEndsAt || current.graceEndsAt > now) return false;
        if (!(await this.orgs.applyBillingTransition(account.orgId, 'grace_elapsed'))) return false;
        await this.repo.updateAccount(jobScope(account), { paymentState: 'suspended', suspendedAt: now });
        return true;
      });
      if (done) {
        suspended.push(account.orgId);
        await this.audit.record({ action: 'billing.org_suspended', resourceId: account.orgId, orgId: account.orgId, meta: { graceEndedAt: account.graceEndsAt?.toISOString() } });
      }
    }
    if (suspended.length > 0) logger.info({ orgs: suspended }, 'access gate suspended orgs');
    return suspended;
  }

  /** The gate's state for the platform's OrgAccessGate: suspended (and deactivated) orgs are closed. */
  async closedAmong(orgIds: string[]): Promise<Set<string>> {
    const summaries = await this.orgs.summaries(orgIds);
    return new Set([...summaries.values()].filter((o) => GATE_CLOSED_STATUSES.includes(o.status)).map((o) => o.id));
  }

  /** The same rule, as a part of the statement that reads a request's caller. */
  closedAmongSql(orgIds: SQLWrapper): SQL<string[]> {
    return orgIdsInStatus(orgIds, GATE_CLOSED_STATUSES);
  }
}
