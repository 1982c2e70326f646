import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingService, DunningService } from '../../src/modules/billing/index.js';
import { billingAccounts, billingSubscriptions } from '../../src/modules/billing/billing.tables.js';
import { orgSpecialistAssignments } from '../../src/modules/specialists/assignments.tables.js';
import { billingSignature } from '../../src/modules/billing/webhook.verify.js';
import { Clock } from '../../src/platform/clock/clock.js';
import { setLogDestination } from '../../src/platform/observability/logger.js';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe.js';
import { activeGlobex, demoCast, type DemoCast } from '../support/tenants.js';
import { durableEventsDelivered } from '../support/durable-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SECRET_KEY = 'sk_test_contract_51Contract';
const WEBHOOK_SECRET = 'whsec_contract_test_secret';
const GENERIC_SECRET = 'whsec_generic_billing';
const PUBLIC_URL = 'https://cos.example.com';
const DAY_MS = 86_400_000;
const monthAfter = (period: string) => new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)), 1)).toISOString().slice(0, 7);

/** A documented sample event (test/fixtures/vendors/stripe), typed with the SDK's own Event type. */
const fixture = <E extends Stripe.Event>(type: E['type']): E => JSON.parse(readFileSync(new URL(`../fixtures/vendors/stripe/${type}.json`, import.meta.url), 'utf8')) as E;
type InvoiceEvent = Stripe.InvoicePaymentFailedEvent | Stripe.InvoicePaidEvent;
type SubscriptionEvent = Stripe.CustomerSubscriptionUpdatedEvent | Stripe.CustomerSubscriptionDeletedEvent;

/**
 * Contract test of the Stripe adapter (BILLING_PROVIDER=stripe): the booted app against a
 * loopback stand-in of Stripe's API (test/support/stripe.ts) that checks every outbound call
 * against the API's shape, and Stripe's events from the documented samples, signed with the SDK's
 * `generateTestHeaderString`, posted to `POST /api/billing/stripe/webhook`.
 */
describe('Stripe adapter: outbound calls in the API shape, its webhook mapped onto dunning', () => {
  let stripe: StripeStandIn;
  let app: TestApp;
  let c: DemoCast;
  let globex: { id: string; owner: string; osa: Array<{ id: string; specialistId: string }> };
  const lines: string[] = [];

  const sweep = () => app.running.app.get(BillingService).syncAccountsAndSubscriptions();
  const accountOf = async (orgId: string) => (await app.running.dbService.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)))[0]!;
  const itemsOf = async (orgId: string) => app.running.dbService.db.select().from(billingSubscriptions).where(eq(billingSubscriptions.orgId, orgId));
  const postEvent = (raw: string, header?: string) =>
    app.request('POST', '/api/billing/stripe/webhook', { body: raw, headers: { 'content-type': 'application/json', ...(header !== undefined && { 'stripe-signature': header }) } });
  const signed = (event: Stripe.Event, options: { secret?: string; timestamp?: number } = {}) => {
    const payload = JSON.stringify(event);
    return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET, ...(options.timestamp && { timestamp: options.timestamp }) }) };
  };
  const send = async (event: Stripe.Event) => {
    const { payload, header } = signed(event);
    return postEvent(payload, header);
  };
  /** The documented invoice event for one org's customer and Stripe subscription. */
  const invoiceEvent = (type: InvoiceEvent['type'], id: string, customer: string, invoiceId: string) => {
    const event = fixture<InvoiceEvent>(type);
    event.id = id;
    event.data.object.id = invoiceId;
    event.data.object.customer = customer;
    return event;
  };
  /** The documented setup-mode `checkout.session.completed` for one customer and the SetupIntent that collected its card. */
  const setupCompleted = (id: string, customer: string, setupIntent: string) => {
    const event = fixture<Stripe.CheckoutSessionCompletedEvent>('checkout.session.completed');
    event.id = id;
    Object.assign(event.data.object, { customer, setup_intent: setupIntent, metadata: { orgId: globex.id } });
    return event;
  };
  /** An invoice as Stripe's billing makes it (the documented object), put in the stand-in so `GET /v1/invoices/:id` finds it. */
  const stripeInvoice = (id: string, customer: string, fields: Partial<Stripe.Invoice>) => {
    const invoice: Stripe.Invoice = { ...fixture<Stripe.InvoicePaidEvent>('invoice.paid').data.object, id, customer, ...fields };
    stripe.invoices.set(id, invoice);
    return invoice;
  };
  /** Once the queue has delivered every durable event so far (payment failures are). */
  const notificationsOf = async (token: string) => {
    await durableEventsDelivered(app.running.dbService);
    return ((await app.get('/api/notifications?limit=200', { token })).body as Array<{ type: string; meta: Record<string, unknown> }>).filter((n) => n.type === 'billing.payment_failed');
  };

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    stripe = await startStripeStandIn();
    app = await startTestApp({
      env: {
        BILLING_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE_URL: stripe.url,
        BILLING_WEBHOOK_SECRET: GENERIC_SECRET,
        BILLING_GRACE_DAYS: '7',
        PUBLIC_URL,
        LOG_LEVEL: 'warn',
      },
      // The steps run each sweep themselves on a Clock they move; the periodic run (whose periods turn
      // with the machine's time) would otherwise make an invoice run in the middle of a step.
      periodic: false,
    });
    c = await demoCast(app);
    const catalog = (await app.get('/api/specialists', { token: c.superadmin })).body.items as Array<{ id: string }>;
    expect(catalog.length).toBeGreaterThanOrEqual(2);
    const org = await activeGlobex(app, c.am, [
      { specialistId: catalog[0]!.id, monthlyRate: 1200 },
      { specialistId: catalog[1]!.id, monthlyRate: 900 },
    ]);
    globex = { id: org.id, owner: await app.demoLogin('org_admin', 'globex'), osa: org.osas };
  });
  afterAll(async () => {
    setLogDestination(undefined);
    await app?.close();
    await stripe?.close();
  });

  it('links every activated org to a Stripe customer eagerly, and opens one subscription per org with one item per OSA on prices by plan key', async () => {
    await sweep();
    // Every call carried the secret key as a bearer token and Stripe's API version.
    expect(stripe.calls.length).toBeGreaterThan(0);
    for (const call of stripe.calls) {
      expect(call.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
      expect(call.headers['stripe-version']).toBe(Stripe.API_VERSION);
    }
    const customerCall = stripe.to('POST', '/v1/customers').find((call) => call.form['metadata[orgId]'] === globex.id)!;
    expect(customerCall.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(customerCall.form).toMatchObject({ name: 'Globex', 'metadata[orgId]': globex.id });
    expect(customerCall.headers['idempotency-key']).toBe(`org:${globex.id}:customer`);
    const customer = [...stripe.customers.values()].find((x) => x.metadata.orgId === globex.id)!;
    // The demo org was linked by the same sweep.
    expect([...stripe.customers.values()].some((x) => x.metadata.orgId === c.acmeId)).toBe(true);
    const settings = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body;
    expect(settings).toMatchObject({ provider: 'stripe', paymentMethod: null });
    // The customer id stays on the server: the client's settings never carry it.
    expect(settings).not.toHaveProperty('providerCustomerId');
    expect((await accountOf(globex.id)).providerCustomerId).toBe(customer.id);

    // No card yet: no subscription is opened (Stripe would leave its first invoice incomplete and expire it), sweep after sweep.
    expect(stripe.to('POST', '/v1/subscriptions')).toEqual([]);
    const quiet = stripe.calls.length;
    await sweep();
    await sweep();
    expect(stripe.calls.slice(quiet)).toEqual([]);

    // The client finishes Checkout in setup mode: Stripe's SetupIntent is read with its payment method,
    // the card becomes the customer's default for invoices, and our account has it on file.
    const intent = stripe.completeSetup(customer.id);
    const completed = setupCompleted('evt_1Contract_setup', customer.id, intent.id);
    expect((await send(completed)).body).toEqual({ ok: true, duplicate: false });
    const read = stripe.to('GET', `/v1/setup_intents/${intent.id}`);
    expect(read).toHaveLength(1);
    expect([...read[0]!.query.values()]).toContain('payment_method');
    const defaulted = stripe.to('POST', `/v1/customers/${customer.id}`);
    expect(defaulted.map((call) => call.form)).toEqual([{ 'invoice_settings[default_payment_method]': intent.payment_method }]);
    expect(defaulted[0]!.headers['idempotency-key']).toBe(`setup:${intent.id}:customer-default`);
    expect(stripe.customers.get(customer.id)!.invoice_settings.default_payment_method).toBe(intent.payment_method);
    expect(stripe.to('GET', '/v1/subscriptions/*')).toEqual([]);
    const onFile = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.paymentMethod;
    expect(onFile).toMatchObject({ kind: 'card', label: 'Visa •••• 4242' });
    // Stripe retries the event: answered, nothing called or recorded again.
    // (The subscription the card now allows may open meanwhile, from a billing read or the sweep:
    // the replay is judged by the calls the event itself makes.)
    const eventCalls = () => [...stripe.to('GET', `/v1/setup_intents/${intent.id}`), ...stripe.to('POST', `/v1/customers/${customer.id}`)].length;
    const beforeReplay = eventCalls();
    expect((await send(completed)).body).toEqual({ ok: true, duplicate: true });
    expect(eventCalls()).toBe(beforeReplay);
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.paymentMethod).toEqual(onFile);

    // With the card on file the sweep opens the org's subscription; two sweeps at once (a scheduled
    // one beside an invoice run's) run one after the other, so nothing is created twice.
    await Promise.all([sweep(), sweep()]);

    // Prices by plan key, created on demand: a monthly recurring price with the key as its lookup_key.
    for (const [plan, cents] of [
      ['rate_usd_120000', '120000'],
      ['rate_usd_90000', '90000'],
    ] as const) {
      expect(stripe.to('GET', '/v1/prices').some((call) => call.query.get('lookup_keys[0]') === plan || call.query.getAll('lookup_keys[]').includes(plan))).toBe(true);
      // (The scheduled sweep may run beside this one: its create is the same idempotent request, replayed.)
      const created = stripe.to('POST', '/v1/prices').filter((call) => call.form.lookup_key === plan);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const call of created) {
        expect(call.form).toMatchObject({ currency: 'usd', unit_amount: cents, 'recurring[interval]': 'month', lookup_key: plan });
        expect(call.headers['idempotency-key']).toBe(`price:${plan}`);
      }
      expect(stripe.prices.get(plan)).toMatchObject({ unit_amount: Number(cents), currency: 'usd', recurring: { interval: 'month' } });
    }

    // One subscription for the org, the first OSA its first item; the second OSA an item added to it, prorated.
    const opened = stripe.to('POST', '/v1/subscriptions').filter((call) => call.form.customer === customer.id);
    expect(opened.map((call) => call.headers['idempotency-key'])).toEqual([`org:${globex.id}:subscription-after:none`]);
    expect([...stripe.subscriptions.values()].filter((sub) => sub.customer === customer.id)).toHaveLength(1);
    expect(opened[0]!.form).toMatchObject({
      customer: customer.id,
      'items[0][price]': stripe.prices.get('rate_usd_120000')!.id,
      'items[0][quantity]': '1',
      'items[0][metadata][assignmentId]': globex.osa[0]!.id,
      'metadata[orgId]': globex.id,
      collection_method: 'charge_automatically',
      proration_behavior: 'create_prorations',
      'billing_cycle_anchor_config[day_of_month]': '1',
    });
    const subscription = [...stripe.subscriptions.values()].find((s) => s.customer === customer.id)!;
    const adds = stripe.to('POST', '/v1/subscription_items').filter((call) => call.form['metadata[assignmentId]'] === globex.osa[1]!.id);
    expect(adds).toHaveLength(1);
    const added = adds[0]!;
    expect(added.form).toMatchObject({ subscription: subscription.id, price: stripe.prices.get('rate_usd_90000')!.id, quantity: '1', proration_behavior: 'create_prorations' });
    expect(subscription.items.data.map((i) => [i.metadata.assignmentId, i.price.lookup_key])).toEqual([
      [globex.osa[0]!.id, 'rate_usd_120000'],
      [globex.osa[1]!.id, 'rate_usd_90000'],
    ]);
    expect((await accountOf(globex.id)).providerSubscriptionId).toBe(subscription.id);
    expect((await itemsOf(globex.id)).map((row) => [row.assignmentId, row.providerSubscriptionId]).sort()).toEqual(subscription.items.data.map((i) => [i.metadata.assignmentId, i.id]).sort());

    // In step: another sweep calls Stripe for nothing.
    const before = stripe.calls.length;
    await sweep();
    expect(stripe.calls.slice(before)).toEqual([]);
  });

  it('moves an OSA to the price of its new rate with proration, and removes an unassigned OSA its item, prorated', async () => {
    const rows = await itemsOf(globex.id);
    const first = rows.find((r) => r.assignmentId === globex.osa[0]!.id)!;
    const second = rows.find((r) => r.assignmentId === globex.osa[1]!.id)!;
    expect((await app.patch(`/api/am/orgs/${globex.id}/specialist-assignments/${first.assignmentId}`, { monthlyRate: 1500, overrideReason: 'new price' }, { token: c.am })).status).toBe(200);
    await sweep();
    expect(stripe.to('POST', '/v1/prices').filter((call) => call.form.lookup_key === 'rate_usd_150000')).toHaveLength(1);
    const moved = stripe.to('POST', '/v1/subscription_items/*').filter((call) => call.path === `/v1/subscription_items/${first.providerSubscriptionId}`);
    expect(moved).toHaveLength(1);
    expect(moved[0]!.form).toEqual({ price: stripe.prices.get('rate_usd_150000')!.id, proration_behavior: 'create_prorations' });
    expect((await itemsOf(globex.id)).find((r) => r.id === first.id)!.plan).toBe('rate_usd_150000');

    expect((await app.request('DELETE', `/api/am/orgs/${globex.id}/specialist/${globex.osa[1]!.specialistId}`, { token: c.am })).status).toBe(204);
    await sweep();
    const removed = stripe.to('DELETE', '/v1/subscription_items/*');
    expect(removed.map((call) => [call.path, call.query.get('proration_behavior')])).toEqual([[`/v1/subscription_items/${second.providerSubscriptionId}`, 'create_prorations']]);
    const subscription = stripe.subscriptions.get((await accountOf(globex.id)).providerSubscriptionId!)!;
    expect(subscription.items.data.map((i) => i.id)).toEqual([first.providerSubscriptionId]);
    expect((await itemsOf(globex.id)).find((r) => r.id === second.id)!.endsOn).not.toBeNull();
  });

  it('answers the checkout URL with a Stripe Checkout session in setup mode for the org customer', async () => {
    const res = await app.get(`/api/client/billing/checkout-url?orgId=${globex.id}`, { token: globex.owner });
    expect(res.status).toBe(200);
    const call = stripe.to('POST', '/v1/checkout/sessions').at(-1)!;
    const customer = (await accountOf(globex.id)).providerCustomerId;
    expect(call.form).toMatchObject({ mode: 'setup', customer, currency: 'usd', 'metadata[orgId]': globex.id });
    expect(call.form.success_url).toBe(`${PUBLIC_URL}/client/settings/billing?orgId=${globex.id}&setup=done`);
    expect(call.form.cancel_url).toBe(`${PUBLIC_URL}/client/settings/billing?orgId=${globex.id}`);
    expect(res.body).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/), provider: 'stripe', mode: 'setup' });

    // The client sets up another card: it becomes the customer's default, and the subscription's, which names none.
    const subscriptionId = (await accountOf(globex.id)).providerSubscriptionId!;
    const intent = stripe.completeSetup(customer, { brand: 'mastercard', last4: '4444' });
    expect((await send(setupCompleted('evt_1Contract_setup_2', customer, intent.id))).body).toEqual({ ok: true, duplicate: false });
    expect(stripe.to('POST', `/v1/customers/${customer}`).at(-1)!.form).toEqual({ 'invoice_settings[default_payment_method]': intent.payment_method });
    expect(stripe.to('GET', `/v1/subscriptions/${subscriptionId}`)).toHaveLength(1);
    const onSubscription = stripe.to('POST', `/v1/subscriptions/${subscriptionId}`);
    expect(onSubscription.map((call) => [call.form, call.headers['idempotency-key']])).toEqual([[{ default_payment_method: intent.payment_method }, `setup:${intent.id}:subscription-default`]]);
    expect(stripe.subscriptions.get(subscriptionId)!.default_payment_method).toBe(intent.payment_method);
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.paymentMethod).toMatchObject({ kind: 'card', label: 'Mastercard •••• 4444' });
  });

  it('takes invoice.payment_failed into dunning exactly as the generic webhook does, once per event id; the access gate suspends; invoice.paid restores', async () => {
    const account = await accountOf(globex.id);
    const failed = invoiceEvent('invoice.payment_failed', 'evt_1Contract_failed', account.providerCustomerId, 'in_1ContractGlobex01');
    const answered = await send(failed);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ ok: true, duplicate: false });

    // The same failure through the generic signed webhook, for the demo org.
    const generic = JSON.stringify({
      id: 'evt_generic_failed',
      type: 'payment_failed',
      data: { orgId: c.acmeId, invoiceId: 'in_1ContractAcme01', amount: 3000, currency: 'USD', failureReason: 'card declined' },
    });
    expect(
      (
        await app.request('POST', '/api/billing/provider/webhook', {
          body: generic,
          headers: { 'content-type': 'application/json', 'x-billing-signature': billingSignature(GENERIC_SECRET, Math.floor(Date.now() / 1000), generic) },
        })
      ).body,
    ).toEqual({ ok: true, duplicate: false });

    const viaStripe = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning;
    const viaGeneric = (await app.get(`/api/orgs/${c.acmeId}/billing`, { token: c.owner })).body.dunning;
    for (const dunning of [viaStripe, viaGeneric]) {
      expect(dunning).toMatchObject({ paymentState: 'past_due', suspendedAt: null });
      expect(Date.parse(dunning.graceEndsAt) - Date.parse(dunning.pastDueSince)).toBe(7 * DAY_MS);
    }
    expect(viaStripe.lastFailureReason).toBe('Stripe could not collect invoice ACME-0007 (attempt 1)');
    // The org's owner is told, with Stripe's invoice id, as the generic webhook tells the demo org's.
    const told = await notificationsOf(globex.owner);
    expect(told).toEqual([expect.objectContaining({ meta: expect.objectContaining({ orgId: globex.id, invoiceId: 'in_1ContractGlobex01' }) })]);
    expect(await notificationsOf(c.owner)).toEqual([expect.objectContaining({ meta: expect.objectContaining({ orgId: c.acmeId, invoiceId: 'in_1ContractAcme01' }) })]);

    // The same event id again (Stripe retries): answered, nothing done twice.
    expect((await send(failed)).body).toEqual({ ok: true, duplicate: true });
    expect(await notificationsOf(globex.owner)).toHaveLength(1);
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning).toEqual(viaStripe);

    // Grace elapsed: the access gate suspends; the client APIs answer 403 org_suspended.
    const clock = app.running.app.get(Clock);
    clock.advance(7 * DAY_MS + 60_000);
    expect(await app.running.app.get(DunningService).runAccessGate(clock.now())).toEqual(expect.arrayContaining([globex.id]));
    expect((await app.get('/api/client/trial-info', { token: globex.owner })).body).toMatchObject({ statusCode: 403, code: 'org_suspended' });

    // Stripe collects on a retry: invoice.paid clears the dunning and reactivates the org at once.
    const paid = invoiceEvent('invoice.paid', 'evt_1Contract_paid', account.providerCustomerId, 'in_1ContractGlobex01');
    expect((await send(paid)).body).toEqual({ ok: true, duplicate: false });
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning).toEqual({
      paymentState: 'ok',
      pastDueSince: null,
      graceEndsAt: null,
      lastFailureReason: null,
      suspendedAt: null,
    });
    expect((await app.get(`/api/orgs/${globex.id}`, { token: c.am })).body.status).toBe('active');
    expect((await app.get('/api/client/trial-info', { token: globex.owner })).status).toBe(200);
    expect((await send(paid)).body).toEqual({ ok: true, duplicate: true });
  });

  it('keeps the org subscription in step with customer.subscription.*: its status drives the dunning once per failure, and a new subscription after Stripe ended it', async () => {
    const account = await accountOf(globex.id);
    const subscription = stripe.subscriptions.get(account.providerSubscriptionId!)!;
    const running = (await itemsOf(globex.id)).filter((r) => !r.endsOn);
    const asStripeSends = (type: SubscriptionEvent['type'], id: string, status: Stripe.Subscription.Status, latestInvoice: string | null = null) => {
      const event = fixture<SubscriptionEvent>(type);
      event.id = id;
      Object.assign(event.data.object, {
        id: subscription.id,
        customer: account.providerCustomerId,
        status,
        latest_invoice: latestInvoice,
        items: { ...event.data.object.items, data: subscription.items.data },
      });
      return event;
    };
    const billing = async () => (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning;
    const noticesBefore = (await notificationsOf(globex.owner)).length;

    // Stripe's retry failed: the subscription turns past_due before its invoice event arrives. Its
    // latest invoice is read from Stripe and fails through the dunning, told once.
    const open = stripeInvoice('in_1ContractRetry01', account.providerCustomerId, { status: 'open', attempt_count: 2, amount_paid: 0, amount_remaining: 120000, total: 120000, amount_due: 120000 });
    const pastDue = asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_updated', 'past_due', open.id);
    expect((await send(pastDue)).body).toEqual({ ok: true, duplicate: false });
    expect(stripe.to('GET', `/v1/invoices/${open.id}`)).toHaveLength(1);
    expect((await accountOf(globex.id)).providerSubscriptionStatus).toBe('past_due');
    const dunning = await billing();
    expect(dunning).toMatchObject({ paymentState: 'past_due', lastFailureReason: 'Stripe could not collect invoice ACME-0007 (attempt 2)' });
    expect(await notificationsOf(globex.owner)).toHaveLength(noticesBefore + 1);
    // The same failure by its invoice event: no second notice, the grace period unchanged.
    const failed = invoiceEvent('invoice.payment_failed', 'evt_1Contract_retry_failed', account.providerCustomerId, open.id);
    expect((await send(failed)).body).toEqual({ ok: true, duplicate: false });
    expect(await notificationsOf(globex.owner)).toHaveLength(noticesBefore + 1);
    expect((await billing()).graceEndsAt).toBe(dunning.graceEndsAt);
    expect((await send(pastDue)).body).toEqual({ ok: true, duplicate: true });
    // unpaid after past_due: Stripe still cannot collect the same invoice; nothing new.
    expect((await send(asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_unpaid', 'unpaid', open.id))).body).toEqual({ ok: true, duplicate: false });
    expect(await notificationsOf(globex.owner)).toHaveLength(noticesBefore + 1);
    expect((await billing()).graceEndsAt).toBe(dunning.graceEndsAt);

    // Collected on a later retry: active after unpaid ends the dunning, once.
    stripe.invoices.set(open.id, { ...open, status: 'paid', amount_paid: 120000, amount_remaining: 0 });
    const active = asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_active', 'active', open.id);
    expect((await send(active)).body).toEqual({ ok: true, duplicate: false });
    expect(await billing()).toEqual({ paymentState: 'ok', pastDueSince: null, graceEndsAt: null, lastFailureReason: null, suspendedAt: null });
    expect((await accountOf(globex.id)).providerSubscriptionStatus).toBe('active');
    expect((await send(active)).body).toEqual({ ok: true, duplicate: true });
    const reads = stripe.to('GET', '/v1/invoices/*').length;
    expect((await send(asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_active_2', 'active', open.id))).body).toEqual({ ok: true, duplicate: false });
    expect(stripe.to('GET', '/v1/invoices/*')).toHaveLength(reads);
    expect(await billing()).toMatchObject({ paymentState: 'ok' });

    // The next cycle fails, then the subscription is active again because its invoice was voided at
    // Stripe (not paid): no payment is recorded, the dunning stays for the operators (docs/billing.md).
    const voided = stripeInvoice('in_1ContractRetry02', account.providerCustomerId, { status: 'open', attempt_count: 1, amount_paid: 0, amount_remaining: 120000, total: 120000, amount_due: 120000 });
    expect((await send(asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_past_due_2', 'past_due', voided.id))).body).toEqual({ ok: true, duplicate: false });
    const failing = await billing();
    expect(failing).toMatchObject({ paymentState: 'past_due' });
    stripe.invoices.set(voided.id, { ...voided, status: 'void', amount_remaining: 0 });
    expect((await send(asStripeSends('customer.subscription.updated', 'evt_1Contract_sub_active_voided', 'active', voided.id))).body).toEqual({ ok: true, duplicate: false });
    expect(stripe.to('GET', `/v1/invoices/${voided.id}`)).toHaveLength(2);
    expect((await accountOf(globex.id)).providerSubscriptionStatus).toBe('active');
    expect(await billing()).toEqual(failing);
    expect(lines.some((l) => l.includes(voided.id) && l.includes('Stripe subscription active again without its latest invoice paid'))).toBe(true);

    // Stripe cancels it (its own retry rules): the running OSAs are opened again on a new subscription.
    subscription.status = 'canceled';
    expect((await send(asStripeSends('customer.subscription.deleted', 'evt_1Contract_sub_deleted', 'canceled'))).body).toEqual({ ok: true, duplicate: false });
    expect((await accountOf(globex.id)).providerSubscriptionStatus).toBe('canceled');
    expect((await itemsOf(globex.id)).filter((r) => !r.endsOn)).toEqual([]);
    await sweep();
    const reopened = stripe.to('POST', '/v1/subscriptions').at(-1)!;
    expect(reopened.headers['idempotency-key']).toBe(`org:${globex.id}:subscription-after:${subscription.id}`);
    expect(reopened.form).toMatchObject({
      customer: account.providerCustomerId,
      'items[0][metadata][assignmentId]': running[0]!.assignmentId,
      'items[0][price]': stripe.prices.get('rate_usd_150000')!.id,
    });
    const next = await accountOf(globex.id);
    expect(next.providerSubscriptionId).not.toBe(subscription.id);
    expect((await itemsOf(globex.id)).filter((r) => !r.endsOn).map((r) => r.providerSubscriptionId)).toEqual(stripe.subscriptions.get(next.providerSubscriptionId!)!.items.data.map((i) => i.id));
  });

  it('refuses a bad, expired, missing or foreign signature with 401 and a security line; acknowledges unknown customers and other event types', async () => {
    const account = await accountOf(globex.id);
    const dunningBefore = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning;
    const event = invoiceEvent('invoice.payment_failed', 'evt_1Contract_refused', account.providerCustomerId, 'in_1ContractRefused');
    const good = signed(event);
    const refused = [
      await postEvent(good.payload),
      await postEvent(good.payload, 'garbage'),
      await postEvent(good.payload.replace('"attempt_count":1', '"attempt_count":2'), good.header),
      await postEvent(signed(event, { secret: 'whsec_another_account' }).payload, signed(event, { secret: 'whsec_another_account' }).header),
      await postEvent(good.payload, signed(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }).header),
    ];
    for (const res of refused) expect(res.body).toMatchObject({ statusCode: 401, code: 'unauthorized' });
    const security = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'security.webhook_signature_invalid' && l.channel === 'billing-stripe');
    expect(security).toHaveLength(refused.length);
    for (const line of security) expect(JSON.stringify(line)).not.toContain(WEBHOOK_SECRET);
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning).toEqual(dunningBefore);

    expect((await send(invoiceEvent('invoice.payment_failed', 'evt_1Contract_stranger', 'cus_SomeoneElse', 'in_1Stranger'))).body).toEqual({ ok: true, duplicate: false, ignored: 'unknown_org' });
    const other: Stripe.InvoiceFinalizedEvent = { ...fixture<Stripe.InvoicePaidEvent>('invoice.paid'), id: 'evt_1Contract_other', type: 'invoice.finalized' };
    expect((await send(other)).body).toEqual({ ok: true, duplicate: false, ignored: 'event_type' });
    expect((await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.dunning).toEqual(dunningBefore);
  });

  it('treats an expired first invoice as a failed payment: the card is cleared, and no subscription opens again before a new card (no daily loop)', async () => {
    const account = await accountOf(globex.id);
    const subscription = stripe.subscriptions.get(account.providerSubscriptionId!)!;
    const first = stripeInvoice('in_1ContractFirst02', account.providerCustomerId, {
      status: 'void',
      billing_reason: 'subscription_create',
      number: 'GLOBEX-0002',
      attempt_count: 1,
      amount_paid: 0,
      amount_due: 150000,
      amount_remaining: 150000,
      total: 150000,
    });
    subscription.status = 'incomplete_expired';
    const expired = fixture<Stripe.CustomerSubscriptionUpdatedEvent>('customer.subscription.updated');
    expired.id = 'evt_1Contract_sub_expired';
    Object.assign(expired.data.object, {
      id: subscription.id,
      customer: account.providerCustomerId,
      status: 'incomplete_expired',
      latest_invoice: first.id,
      items: { ...expired.data.object.items, data: subscription.items.data },
    });
    expired.data.previous_attributes = { status: 'incomplete' };
    expect((await send(expired)).body).toEqual({ ok: true, duplicate: false });
    const settings = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body;
    expect(settings.dunning).toMatchObject({ paymentState: 'past_due', lastFailureReason: `Stripe could not collect the first invoice of subscription ${subscription.id}; it expired` });
    expect(settings.paymentMethod).toBeNull();
    expect((await itemsOf(globex.id)).filter((r) => !r.endsOn)).toEqual([]);

    // Days go by, the sweep runs: nothing is opened at Stripe.
    const opened = stripe.to('POST', '/v1/subscriptions').length;
    const clock = app.running.app.get(Clock);
    for (let day = 0; day < 3; day++) {
      clock.advance(DAY_MS);
      await sweep();
    }
    expect(stripe.to('POST', '/v1/subscriptions')).toHaveLength(opened);

    // A new card: the expired subscription is left alone, and the sweep opens exactly one new subscription.
    const intent = stripe.completeSetup(account.providerCustomerId);
    expect((await send(setupCompleted('evt_1Contract_setup_3', account.providerCustomerId, intent.id))).body).toEqual({ ok: true, duplicate: false });
    expect(stripe.to('POST', `/v1/subscriptions/${subscription.id}`)).toEqual([]);
    await sweep();
    await sweep();
    const reopened = stripe.to('POST', '/v1/subscriptions').slice(opened);
    expect(reopened).toHaveLength(1);
    expect(reopened[0]!.headers['idempotency-key']).toBe(`org:${globex.id}:subscription-after:${subscription.id}`);
    const next = (await accountOf(globex.id)).providerSubscriptionId!;
    expect(stripe.subscriptions.get(next)!.status).toBe('active');
  });

  it("settles our invoice of a month with Stripe's invoices of that month; the ops outstanding amount is what is not collected, never counted twice", async () => {
    const clock = app.running.app.get(Clock);
    const account = await accountOf(globex.id);
    const opsRow = async (orgId: string) =>
      ((await app.get(`/api/ops/billing/orgs?orgId=${orgId}`, { token: c.superadmin })).body.items as Array<{ orgId: string; openInvoices: number; outstandingCents: number }>)[0]!;
    const invoicesOf = async (orgId: string, token: string) =>
      (await app.get(`/api/orgs/${orgId}/invoices`, { token })).body.items as Array<{
        period: string;
        status: string;
        totalCents: number;
        providerInvoiceId: string | null;
        providerAmountCents: number | null;
      }>;
    const baseline = await opsRow(globex.id);
    const period = clock.now().toISOString().slice(0, 7);

    // The first invoice of the new subscription (Stripe prorates to the second): it bills this month, and fails.
    const now = Math.floor(clock.now().getTime() / 1000);
    const fields = {
      period_start: now,
      period_end: now,
      billing_reason: 'subscription_create',
      number: 'GLOBEX-0003',
      amount_due: 100001,
      amount_remaining: 100001,
      amount_paid: 0,
      total: 100001,
    } satisfies Partial<Stripe.Invoice>;
    const failed = invoiceEvent('invoice.payment_failed', 'evt_1Contract_first_failed', account.providerCustomerId, 'in_1ContractFirst03');
    Object.assign(failed.data.object, fields);
    expect((await send(failed)).body).toEqual({ ok: true, duplicate: false });
    expect(await opsRow(globex.id)).toMatchObject({ openInvoices: baseline.openInvoices + 1, outstandingCents: baseline.outstandingCents + 100001 });

    // The month closes and our invoice run makes our invoice of it: Stripe's invoice of the month settles it.
    clock.advance(Date.parse(`${monthAfter(period)}-01T01:00:00Z`) - clock.now().getTime());
    expect((await app.post('/api/ops/billing/invoices/run', { period }, { token: c.superadmin })).status).toBe(200);
    const ours = (await invoicesOf(globex.id, globex.owner)).find((i) => i.period === period)!;
    expect(ours).toMatchObject({ status: 'payment_failed', providerInvoiceId: 'in_1ContractFirst03', providerAmountCents: 100001 });
    expect(ours.totalCents).toBeGreaterThan(0);
    expect(ours.totalCents).not.toBe(100001);
    // Counted once: Stripe's uncollected amount, not also ours.
    expect(await opsRow(globex.id)).toMatchObject({ openInvoices: baseline.openInvoices + 1, outstandingCents: baseline.outstandingCents + 100001 });

    // Stripe collects it: our invoice is paid through the same dunning path, nothing outstanding of it.
    const paid = invoiceEvent('invoice.paid', 'evt_1Contract_first_paid', account.providerCustomerId, 'in_1ContractFirst03');
    Object.assign(paid.data.object, { ...fields, amount_paid: 100001, amount_remaining: 0, status: 'paid' });
    expect((await send(paid)).body).toEqual({ ok: true, duplicate: false });
    expect((await invoicesOf(globex.id, globex.owner)).find((i) => i.period === period)).toMatchObject({ status: 'paid', providerInvoiceId: 'in_1ContractFirst03', providerAmountCents: 100001 });
    expect(await opsRow(globex.id)).toMatchObject({ openInvoices: baseline.openInvoices, outstandingCents: baseline.outstandingCents });

    // An org no Stripe invoice settles (the demo org has no card): our open invoice is what it owes.
    const acme = (await invoicesOf(c.acmeId, c.owner)).filter((i) => i.status === 'open' || i.status === 'payment_failed');
    expect(acme.length).toBeGreaterThan(0);
    expect(acme.every((i) => i.providerInvoiceId === null && i.providerAmountCents === null)).toBe(true);
    expect(await opsRow(c.acmeId)).toMatchObject({ openInvoices: acme.length, outstandingCents: acme.reduce((n, i) => n + i.totalCents, 0) });
  });

  it('charges an OSA assigned and unassigned between two sweeps once, as a pending invoice item of what our engine bills for its days', async () => {
    const catalog = (await app.get('/api/specialists', { token: c.superadmin })).body.items as Array<{ id: string }>;
    const assigned = await app.post(`/api/am/orgs/${globex.id}/specialist`, { specialistId: catalog[1]!.id, monthlyRate: 900, overrideReason: 'short engagement' }, { token: c.am });
    expect(assigned.status).toBe(201);
    expect((await app.request('DELETE', `/api/am/orgs/${globex.id}/specialist/${catalog[1]!.id}`, { token: c.am })).status).toBe(204);
    // Unassigned two days after it was made, no sweep in between (the sweep was down).
    const [row] = await app.running.dbService.db
      .select()
      .from(orgSpecialistAssignments)
      .where(eq(orgSpecialistAssignments.id, assigned.body.id as string));
    const startsOn = row!.createdAt.toISOString().slice(0, 10);
    await app.running.dbService.db
      .update(orgSpecialistAssignments)
      .set({ unassignedAt: new Date(Date.parse(`${startsOn}T12:00:00Z`) + 2 * DAY_MS) })
      .where(eq(orgSpecialistAssignments.id, row!.id));
    // Our engine's rule: per month, the billed days at 900.00 over the month's days, rounded half up once.
    const byMonth = new Map<string, number>();
    for (const day of [0, 1].map((n) => new Date(Date.parse(`${startsOn}T00:00:00Z`) + n * DAY_MS))) byMonth.set(day.toISOString().slice(0, 7), (byMonth.get(day.toISOString().slice(0, 7)) ?? 0) + 1);
    const owed = [...byMonth].reduce((sum, [month, days]) => {
      const inMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
      return sum + Math.floor((2 * days * 90000 + inMonth) / (2 * inMonth));
    }, 0);

    const account = await accountOf(globex.id);
    await sweep();
    await sweep();
    const charged = stripe.to('POST', '/v1/invoiceitems');
    expect(charged).toHaveLength(1);
    expect(charged[0]!.headers['idempotency-key']).toBe(`osa:${row!.id}:one-off`);
    expect(charged[0]!.form).toMatchObject({
      customer: account.providerCustomerId,
      amount: String(owed),
      currency: 'usd',
      'period[start]': String(Date.parse(`${startsOn}T00:00:00Z`) / 1000),
      'period[end]': String(Date.parse(`${startsOn}T00:00:00Z`) / 1000 + 2 * 86400),
      'metadata[orgId]': globex.id,
      'metadata[assignmentId]': row!.id,
    });
    const item = [...stripe.invoiceItems.values()][0]!;
    expect((await itemsOf(globex.id)).find((r) => r.assignmentId === row!.id)).toMatchObject({
      providerSubscriptionId: item.id,
      startsOn,
      endsOn: new Date(Date.parse(`${startsOn}T00:00:00Z`) + 2 * DAY_MS).toISOString().slice(0, 10),
    });
  });

  it("keeps one currency per Stripe subscription: an OSA in EUR on the org's USD subscription gets no item, and is left to our EUR invoice", async () => {
    const euro = await app.post(
      '/api/specialists',
      { name: 'Elke Euro', slug: `elke-euro-${Date.now().toString(36)}`, persona: 'x', monthly_rate_config: { base_rate: 800, currency: 'EUR' } },
      { token: c.superadmin },
    );
    expect(euro.status).toBe(201);
    const assigned = await app.post(`/api/am/orgs/${globex.id}/specialist`, { specialistId: euro.body.id }, { token: c.am });
    expect(assigned.status).toBe(201);
    const subscription = (await accountOf(globex.id)).providerSubscriptionId!;
    expect(stripe.subscriptions.get(subscription)!.status).toBe('active');
    expect((await itemsOf(globex.id)).some((r) => !r.endsOn)).toBe(true);
    const itemCalls = stripe.to('POST', '/v1/subscription_items').length;
    await sweep();
    await sweep();
    // No item in another currency was asked for (Stripe refuses mixed currencies), and nothing records one.
    expect(
      stripe
        .to('POST', '/v1/subscription_items')
        .slice(itemCalls)
        .filter((call) => call.form['metadata[assignmentId]'] === assigned.body.id),
    ).toEqual([]);
    expect(stripe.to('POST', '/v1/prices').filter((call) => call.form.currency === 'eur')).toEqual([]);
    expect((await itemsOf(globex.id)).map((r) => r.assignmentId)).not.toContain(assigned.body.id);
    expect(lines.some((line) => line.includes(assigned.body.id) && line.includes("an OSA in another currency than the org's provider subscription is not subscribed"))).toBe(true);
    // Our engine still bills it, on its own invoice of its currency.
    const upcoming = (await app.get(`/api/orgs/${globex.id}/billing`, { token: globex.owner })).body.upcomingInvoices as Array<{ currency: string; lines: Array<{ assignmentId: string }> }>;
    expect(upcoming.find((i) => i.currency === 'EUR')!.lines.map((l) => l.assignmentId)).toEqual([assigned.body.id]);
    expect(upcoming.find((i) => i.currency === 'USD')!.lines.map((l) => l.assignmentId)).not.toContain(assigned.body.id);
  });

  it('made every outbound call in the shape of the Stripe API', () => {
    expect(stripe.problems).toEqual([]);
  });
});
