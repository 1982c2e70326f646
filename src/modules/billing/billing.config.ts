import { baseUrl, intFrom, oneOf, optionalString, optionalUrl } from '../../platform/config/env-fields.js';
import { defineConfigSlice } from '../../platform/config/slice.js';

/** Billing's settings (docs/billing.md): the provider adapter, pricing, dunning, cost reconciliation. */
export const billingConfig = defineConfigSlice('billing', {
  variables: {
    BILLING_WEBHOOK_SECRET: optionalString,
    BILLING_GRACE_DAYS: intFrom(7, 0),
    BILLING_PRICING_STRATEGY: oneOf(['plan_per_rate', 'plan_overrides'], 'plan_per_rate'),
    BILLING_PREMIUM_LICENSE: optionalString,
    BILLING_PROVIDER: oneOf(['manual', 'stripe'], 'manual'),
    STRIPE_SECRET_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    /** Tests only: points the Stripe SDK at a loopback stand-in (its protocol, host and port). */
    STRIPE_API_BASE_URL: optionalUrl,
    TRACING_BASE_URL: optionalUrl,
    TRACING_PUBLIC_KEY: optionalString,
    TRACING_SECRET_KEY: optionalString,
  },
  /**
   * plan_overrides needs the premium licence. Stripe needs its API key everywhere (the adapter can
   * do nothing without it) and, in production, its webhook signing secret (elsewhere the Stripe
   * webhook then refuses every call). It prices per rate only: `plan_overrides` (a price override
   * per subscription) is not offered with it.
   */
  check(e, { isProduction }) {
    if (e.BILLING_PRICING_STRATEGY === 'plan_overrides' && !e.BILLING_PREMIUM_LICENSE) {
      return 'BILLING_PRICING_STRATEGY: plan_overrides needs a premium licence of the billing provider (BILLING_PREMIUM_LICENSE); use plan_per_rate';
    }
    if (e.BILLING_PROVIDER !== 'stripe') return undefined;
    const required = isProduction ? (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) : (['STRIPE_SECRET_KEY'] as const);
    const missing = required.filter((k) => !e[k]);
    if (missing.length > 0) return `${missing.join(', ')}: required with BILLING_PROVIDER=stripe${isProduction ? ' in production' : ''}`;
    if (e.BILLING_PRICING_STRATEGY === 'plan_overrides')
      return 'BILLING_PRICING_STRATEGY: the Stripe adapter prices per rate (plan_per_rate); plan_overrides is not offered with BILLING_PROVIDER=stripe';
    return undefined;
  },
  build: (e) => ({
    webhookSecret: e.BILLING_WEBHOOK_SECRET,
    graceDays: e.BILLING_GRACE_DAYS,
    /** How the provider adapter maps rates to plans (spec 2.8); plan_overrides needs the premium licence. */
    pricingStrategy: e.BILLING_PRICING_STRATEGY,
    premiumLicense: e.BILLING_PREMIUM_LICENSE,
    /** The payment provider adapter (docs/billing.md "Payment provider adapter"). */
    provider: e.BILLING_PROVIDER,
    /** With `provider: 'stripe'`: the API key, the webhook signing secret, and (tests only) where its API is. */
    stripe: { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, apiBaseUrl: baseUrl(e.STRIPE_API_BASE_URL) },
    /** The external tracing tool the nightly cost reconciliation reads (analytics only; unset: skipped). */
    tracing: { baseUrl: baseUrl(e.TRACING_BASE_URL), publicKey: e.TRACING_PUBLIC_KEY, secretKey: e.TRACING_SECRET_KEY },
  }),
});

export type BillingConfig = ReturnType<typeof billingConfig.read>;
