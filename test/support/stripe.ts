import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type Stripe from 'stripe';

/** One call the app made to the Stripe API, its form body taken apart (`items[0][price]` stays one key). */
export interface StripeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  form: Record<string, string>;
  headers: IncomingHttpHeaders;
}

/**
 * A loopback stand-in for the Stripe API (https://docs.stripe.com/api), enough for the billing
 * adapter: customers (their default payment method), prices (by `lookup_key`), subscriptions and
 * subscription items, Checkout sessions, SetupIntents and payment methods (made by `completeSetup`
 * as a client finishing Checkout would), invoices (put there by the test) and invoice items. It holds the objects it made, answers in Stripe's object shapes (typed with the SDK's
 * types), replays a response for a repeated `Idempotency-Key` and refuses the same key with other
 * parameters (as Stripe does), and records every call. Each call is checked against the API's
 * shape: `Authorization: Bearer sk_test_...`, a `Stripe-Version`, form-encoded bodies, a known
 * path and the parameters that path requires; a call that fails a check answers Stripe's error
 * shape and is listed in `problems`.
 */
export interface StripeStandIn {
  url: string;
  calls: StripeCall[];
  problems: string[];
  customers: Map<string, Stripe.Customer>;
  subscriptions: Map<string, Stripe.Subscription>;
  prices: Map<string, Stripe.Price>;
  /** Invoices Stripe made (the test puts them here as Stripe's billing would), answered by `GET /v1/invoices/:id`. */
  invoices: Map<string, Stripe.Invoice>;
  setupIntents: Map<string, Stripe.SetupIntent>;
  paymentMethods: Map<string, Stripe.PaymentMethod>;
  invoiceItems: Map<string, Stripe.InvoiceItem>;
  /** What a client completing Checkout in setup mode leaves at Stripe: a card and the succeeded SetupIntent that collected it. */
  completeSetup(customer: string, card?: { brand: string; last4: string }): Stripe.SetupIntent;
  /** Calls to one method and path pattern (`/v1/subscription_items/*` matches an id). */
  to(method: string, path: string): StripeCall[];
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };
const error = (status: number, message: string, type = 'invalid_request_error', param?: string): Answer => ({ status, body: { error: { type, message, ...(param && { param }) } } });

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const calls: StripeCall[] = [];
  const problems: string[] = [];
  const customers = new Map<string, Stripe.Customer>();
  const subscriptions = new Map<string, Stripe.Subscription>();
  const prices = new Map<string, Stripe.Price>();
  const invoices = new Map<string, Stripe.Invoice>();
  const setupIntents = new Map<string, Stripe.SetupIntent>();
  const paymentMethods = new Map<string, Stripe.PaymentMethod>();
  const invoiceItems = new Map<string, Stripe.InvoiceItem>();
  const idempotent = new Map<string, { request: string; answer: Answer }>();
  let seq = 0;
  const nextId = (prefix: string) => `${prefix}_Test${(++seq).toString().padStart(6, '0')}`;
  const now = () => Math.floor(Date.now() / 1000);

  const metadataOf = (form: Record<string, string>, prefix = 'metadata') =>
    Object.fromEntries(Object.entries(form).flatMap(([k, v]) => (k.startsWith(`${prefix}[`) ? [[k.slice(prefix.length + 1, -1), v]] : [])));
  const require = (form: Record<string, string>, ...keys: string[]) => keys.find((k) => form[k] === undefined || form[k] === '');

  function price(id: string): Stripe.Price | undefined {
    return [...prices.values()].find((p) => p.id === id);
  }
  function item(subscription: string, priceId: string, metadata: Record<string, string>): Stripe.SubscriptionItem {
    return { id: nextId('si'), object: 'subscription_item', subscription, price: price(priceId)!, quantity: 1, metadata, created: now() } as Stripe.SubscriptionItem;
  }
  function findItem(id: string): { sub: Stripe.Subscription; item: Stripe.SubscriptionItem } | undefined {
    for (const sub of subscriptions.values()) {
      const found = sub.items.data.find((i) => i.id === id);
      if (found) return { sub, item: found };
    }
    return undefined;
  }

  const expanded = (query: URLSearchParams) => query.getAll('expand[]').concat(query.getAll('expand[0]'), query.getAll('expand[1]'));

  function route(method: string, path: string, query: URLSearchParams, form: Record<string, string>): Answer {
    const customerOne = /^\/v1\/customers\/([^/]+)$/.exec(path);
    if (method === 'POST' && customerOne) {
      const customer = customers.get(customerOne[1]!);
      if (!customer) return error(404, `No such customer: '${customerOne[1]}'`, 'invalid_request_error', 'id');
      const pm = form['invoice_settings[default_payment_method]'];
      if (pm !== undefined) {
        if (pm && paymentMethods.get(pm)?.customer !== customer.id)
          return error(400, `The payment method \`${pm}\` must be attached to the customer.`, 'invalid_request_error', 'invoice_settings[default_payment_method]');
        customer.invoice_settings = { ...customer.invoice_settings, default_payment_method: pm || null } as Stripe.Customer.InvoiceSettings;
      }
      return { status: 200, body: customer };
    }
    const setupOne = /^\/v1\/setup_intents\/([^/]+)$/.exec(path);
    if (method === 'GET' && setupOne) {
      const intent = setupIntents.get(setupOne[1]!);
      if (!intent) return error(404, `No such setupintent: '${setupOne[1]}'`, 'invalid_request_error', 'intent');
      const pm = intent.payment_method as string | null;
      return { status: 200, body: expanded(query).includes('payment_method') && pm ? { ...intent, payment_method: paymentMethods.get(pm) } : intent };
    }
    const invoiceOne = /^\/v1\/invoices\/([^/]+)$/.exec(path);
    if (method === 'GET' && invoiceOne) {
      const invoice = invoices.get(invoiceOne[1]!);
      return invoice ? { status: 200, body: invoice } : error(404, `No such invoice: '${invoiceOne[1]}'`, 'invalid_request_error', 'invoice');
    }
    if (method === 'POST' && path === '/v1/invoiceitems') {
      const missing = require(form, 'customer', 'amount', 'currency');
      if (missing) return error(400, `Missing required param: ${missing}.`, 'invalid_request_error', missing);
      if (!customers.has(form.customer!)) return error(400, `No such customer: '${form.customer}'`, 'invalid_request_error', 'customer');
      if (!/^-?\d+$/.test(form.amount!)) return error(400, 'Invalid integer: amount', 'invalid_request_error', 'amount');
      const created = {
        id: nextId('ii'),
        object: 'invoiceitem',
        customer: form.customer,
        amount: Number(form.amount),
        currency: form.currency,
        description: form.description ?? null,
        period: { start: Number(form['period[start]'] ?? now()), end: Number(form['period[end]'] ?? now()) },
        metadata: metadataOf(form),
        invoice: null,
        livemode: false,
      } as unknown as Stripe.InvoiceItem;
      invoiceItems.set(created.id, created);
      return { status: 200, body: created };
    }
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: nextId('cus'), object: 'customer', name: form.name ?? null, email: form.email ?? null, metadata: metadataOf(form), created: now(), livemode: false } as Stripe.Customer;
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys = query.getAll('lookup_keys[]').concat(query.getAll('lookup_keys[0]'));
      const data = keys.flatMap((k) => (prices.has(k) ? [prices.get(k)!] : []));
      return { status: 200, body: { object: 'list', url: '/v1/prices', has_more: false, data } satisfies Pick<Stripe.ApiList<Stripe.Price>, 'object' | 'url' | 'has_more' | 'data'> };
    }
    if (method === 'POST' && path === '/v1/prices') {
      const missing = require(form, 'currency', 'unit_amount', 'recurring[interval]', 'lookup_key', 'product_data[name]');
      if (missing) return error(400, `Missing required param: ${missing}.`, 'invalid_request_error', missing);
      if (prices.has(form.lookup_key!)) return error(400, `A price (\`${prices.get(form.lookup_key!)!.id}\`) already uses that lookup key.`, 'invalid_request_error', 'lookup_key');
      const created = {
        id: nextId('price'),
        object: 'price',
        active: true,
        currency: form.currency,
        unit_amount: Number(form.unit_amount),
        lookup_key: form.lookup_key,
        recurring: { interval: form['recurring[interval]'], interval_count: 1 },
        type: 'recurring',
        metadata: metadataOf(form),
        product: nextId('prod'),
      } as Stripe.Price;
      prices.set(form.lookup_key!, created);
      return { status: 200, body: created };
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      const missing = require(form, 'customer', 'items[0][price]');
      if (missing) return error(400, `Missing required param: ${missing}.`, 'invalid_request_error', missing);
      if (!customers.has(form.customer!)) return error(400, `No such customer: '${form.customer}'`, 'invalid_request_error', 'customer');
      if (form.trial_end && form['billing_cycle_anchor_config[day_of_month]']) return error(400, 'billing_cycle_anchor_config cannot be combined with trial_end.');
      const id = nextId('sub');
      const items: Stripe.SubscriptionItem[] = [];
      for (let i = 0; form[`items[${i}][price]`]; i++) {
        if (!price(form[`items[${i}][price]`]!)) return error(400, `No such price: '${form[`items[${i}][price]`]}'`, 'invalid_request_error', `items[${i}][price]`);
        items.push(item(id, form[`items[${i}][price]`]!, metadataOf(form, `items[${i}][metadata]`)));
      }
      // allow_incomplete without a payment method: the first invoice cannot be paid, the subscription stays incomplete.
      const payable = Boolean(form.default_payment_method || customers.get(form.customer!)!.invoice_settings?.default_payment_method);
      const status = form.trial_end ? 'trialing' : payable ? 'active' : 'incomplete';
      const sub = {
        id,
        object: 'subscription',
        customer: form.customer,
        status,
        default_payment_method: form.default_payment_method ?? null,
        latest_invoice: null,
        metadata: metadataOf(form),
        items: { object: 'list', data: items, has_more: false, url: `/v1/subscription_items?subscription=${id}` },
        created: now(),
        trial_end: form.trial_end ? Number(form.trial_end) : null,
      } as unknown as Stripe.Subscription;
      subscriptions.set(id, sub);
      return { status: 200, body: sub };
    }
    const cancel = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (method === 'GET' && cancel) {
      const sub = subscriptions.get(cancel[1]!);
      return sub ? { status: 200, body: sub } : error(404, `No such subscription: '${cancel[1]}'`, 'invalid_request_error', 'id');
    }
    if (method === 'POST' && cancel) {
      const sub = subscriptions.get(cancel[1]!);
      if (!sub) return error(404, `No such subscription: '${cancel[1]}'`, 'invalid_request_error', 'id');
      if (sub.status === 'canceled' || sub.status === 'incomplete_expired') return error(400, `A ${sub.status} subscription can only update its metadata.`);
      const pm = form.default_payment_method;
      if (pm !== undefined) {
        if (paymentMethods.get(pm)?.customer !== sub.customer)
          return error(400, `The payment method \`${pm}\` must be attached to the subscription's customer.`, 'invalid_request_error', 'default_payment_method');
        sub.default_payment_method = pm;
      }
      return { status: 200, body: sub };
    }
    if (method === 'DELETE' && cancel) {
      const sub = subscriptions.get(cancel[1]!);
      if (!sub) return error(404, `No such subscription: '${cancel[1]}'`, 'invalid_request_error', 'id');
      Object.assign(sub, { status: 'canceled', canceled_at: now(), ended_at: now() });
      return { status: 200, body: sub };
    }
    if (method === 'POST' && path === '/v1/subscription_items') {
      const missing = require(form, 'subscription', 'price');
      if (missing) return error(400, `Missing required param: ${missing}.`, 'invalid_request_error', missing);
      const sub = subscriptions.get(form.subscription!);
      if (!sub || sub.status === 'canceled') return error(400, `No such subscription: '${form.subscription}'`, 'invalid_request_error', 'subscription');
      if (!price(form.price!)) return error(400, `No such price: '${form.price}'`, 'invalid_request_error', 'price');
      const created = item(sub.id, form.price!, metadataOf(form));
      sub.items.data.push(created);
      return { status: 200, body: created };
    }
    const one = /^\/v1\/subscription_items\/([^/]+)$/.exec(path);
    if (one) {
      const found = findItem(one[1]!);
      if (!found) return error(404, `No such subscription item: '${one[1]}'`, 'invalid_request_error', 'id');
      if (method === 'DELETE') {
        if (found.sub.items.data.length === 1) return error(400, 'A subscription must have at least one active item; cancel the subscription instead.');
        found.sub.items.data = found.sub.items.data.filter((i) => i.id !== found.item.id);
        return { status: 200, body: { id: found.item.id, object: 'subscription_item', deleted: true } satisfies Stripe.DeletedSubscriptionItem };
      }
      if (method === 'POST') {
        if (form.price && !price(form.price)) return error(400, `No such price: '${form.price}'`, 'invalid_request_error', 'price');
        if (form.price) found.item.price = price(form.price)!;
        return { status: 200, body: found.item };
      }
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const missing = require(form, 'mode', 'success_url');
      if (missing) return error(400, `Missing required param: ${missing}.`, 'invalid_request_error', missing);
      if (form.mode === 'setup' && !form.currency && !form['payment_method_types[0]'])
        return error(400, 'currency is required in setup mode when payment_method_types is not given.', 'invalid_request_error', 'currency');
      if (form.customer && !customers.has(form.customer)) return error(400, `No such customer: '${form.customer}'`, 'invalid_request_error', 'customer');
      const id = nextId('cs_test');
      const session = {
        id,
        object: 'checkout.session',
        mode: form.mode,
        customer: form.customer ?? null,
        currency: form.currency ?? null,
        status: 'open',
        success_url: form.success_url,
        cancel_url: form.cancel_url ?? null,
        metadata: metadataOf(form),
        url: `https://checkout.stripe.com/c/pay/${id}`,
        created: now(),
        livemode: false,
      } as Stripe.Checkout.Session;
      return { status: 200, body: session };
    }
    return error(404, `Unrecognized request URL (${method}: ${path}).`);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const method = req.method ?? 'GET';
      const raw = Buffer.concat(chunks).toString('utf8');
      const bodyParams = method === 'GET' ? new URLSearchParams() : new URLSearchParams(raw);
      // DELETE carries its parameters in the query string, as the SDK sends them.
      const form: Record<string, string> = method === 'GET' ? {} : Object.fromEntries([...url.searchParams, ...bodyParams]);
      const call: StripeCall = { method, path: url.pathname, query: url.searchParams, form, headers: req.headers };
      calls.push(call);
      const answer = (a: Answer, extra: Record<string, string> = {}) => {
        if (a.status >= 400) problems.push(`${method} ${url.pathname}: ${JSON.stringify(a.body)}`);
        res.writeHead(a.status, { 'content-type': 'application/json', 'request-id': `req_${seq}`, ...extra });
        res.end(JSON.stringify(a.body));
      };
      const auth = req.headers.authorization ?? '';
      if (!/^Bearer sk_test_[A-Za-z0-9_]+$/.test(auth)) return answer(error(401, 'Invalid API Key provided.', 'invalid_request_error'));
      if (!req.headers['stripe-version']) return answer(error(400, 'A Stripe-Version header is required.'));
      if (method === 'POST' && raw && !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return answer(error(400, 'Bodies are form-encoded.'));
      const key = req.headers['idempotency-key'];
      const fingerprint = `${method} ${url.pathname} ${raw}`;
      if (typeof key === 'string' && method === 'POST') {
        const seen = idempotent.get(key);
        if (seen && seen.request !== fingerprint) return answer(error(400, `Keys for idempotent requests can only be used with the same parameters they were first used with.`, 'idempotency_error'));
        if (seen) return answer(seen.answer, { 'idempotent-replayed': 'true' });
        const result = route(method, url.pathname, url.searchParams, form);
        if (result.status < 500) idempotent.set(key, { request: fingerprint, answer: result });
        return answer(result);
      }
      answer(route(method, url.pathname, url.searchParams, form));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    problems,
    customers,
    subscriptions,
    prices,
    invoices,
    setupIntents,
    paymentMethods,
    invoiceItems,
    completeSetup(customer, card = { brand: 'visa', last4: '4242' }) {
      const pm = {
        id: nextId('pm'),
        object: 'payment_method',
        type: 'card',
        customer,
        card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2034, funding: 'credit', country: 'US' },
        billing_details: {},
        metadata: {},
        created: now(),
        livemode: false,
      } as unknown as Stripe.PaymentMethod;
      paymentMethods.set(pm.id, pm);
      const intent = {
        id: nextId('seti'),
        object: 'setup_intent',
        customer,
        payment_method: pm.id,
        status: 'succeeded',
        usage: 'off_session',
        payment_method_types: ['card'],
        metadata: {},
        created: now(),
        livemode: false,
      } as unknown as Stripe.SetupIntent;
      setupIntents.set(intent.id, intent);
      return intent;
    },
    to: (method, path) => calls.filter((c) => c.method === method && new RegExp(`^${path.replace(/\*/g, '[^/]+')}$`).test(c.path)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
