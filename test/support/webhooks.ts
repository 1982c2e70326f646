import { createHmac } from 'node:crypto';
import { CHANNEL_NAMES } from '../../src/contracts/channels.js';
import { RouteCatalog } from '../../src/platform/http/openapi.service.js';
import type { HttpClient } from './http.js';
import type { TestApp } from './test-app.js';

/** The account SID the vendor names in calls to the platform's pool numbers, unless a test gives its own. */
export const POOL_ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';

/**
 * A signed messaging-a inbound call, as the vendor makes it (spec 5.6: HMAC-SHA1 over the URL and
 * the sorted form fields); the vendor always names the receiving account (`AccountSid`).
 */
export function messagingACall(publicUrl: string, authToken: string, given: Record<string, string>) {
  const params: Record<string, string> = { AccountSid: POOL_ACCOUNT_SID, ...given };
  const path = '/api/channels/messaging-a/inbound';
  const signature = createHmac('sha1', authToken)
    .update(
      Object.keys(params)
        .sort()
        .reduce((acc, k) => acc + k + params[k], `${publicUrl}${path}`),
    )
    .digest('base64');
  return {
    path,
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-messaging-a-signature': signature },
  };
}

/**
 * A signed chat-a events call (API-MAP.md "Channels": `v0=` HMAC-SHA256 over `v0:<ts>:<raw body>`,
 * the vendor's scheme under the neutral header names).
 */
export function chatACall(signingSecret: string, body: unknown) {
  const raw = JSON.stringify(body);
  const ts = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${ts}:${raw}`).digest('hex')}`;
  return {
    path: '/api/channels/chat-a/events',
    body: raw,
    headers: { 'content-type': 'application/json', 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': signature },
  };
}

/** A messaging-b webhook call: the update as JSON with the integration's secret token. */
export function messagingBCall(webhookSecret: string, update: unknown) {
  return {
    path: '/api/channels/messaging-b/webhook',
    body: JSON.stringify(update),
    headers: { 'content-type': 'application/json', 'x-messaging-b-secret-token': webhookSecret },
  };
}

/** A signed email inbound call: `{ rawMessage: base64 RFC 822 }` with `X-Email-Signature: sha256=<hex HMAC-SHA256>`. */
export function emailCall(signingSecret: string, rfc822: string) {
  const raw = JSON.stringify({ rawMessage: Buffer.from(rfc822).toString('base64') });
  return {
    path: '/api/channels/email/inbound',
    body: raw,
    headers: { 'content-type': 'application/json', 'x-email-signature': `sha256=${createHmac('sha256', signingSecret).update(raw).digest('hex')}` },
  };
}

/** Posts a messaging-a call to one instance; the status, or 0 when the instance did not answer. */
export async function postMessagingA(baseUrl: string, call: ReturnType<typeof messagingACall>): Promise<number> {
  return fetch(baseUrl + call.path, { method: 'POST', body: call.body, headers: call.headers, signal: AbortSignal.timeout(15_000) }).then(
    async (r) => {
      await r.arrayBuffer();
      return r.status;
    },
    () => 0,
  );
}

/**
 * Verifies an integration's binding as staff (an account manager's or superadmin's token), so that
 * its inbound traffic routes instead of being quarantined `binding_unverified` (API-MAP.md
 * "Channel bindings and vendor traffic").
 */
export async function verifyIntegration(http: HttpClient, orgId: string, integrationId: string, staffToken: string): Promise<void> {
  const res = await http.post(`/api/orgs/${orgId}/integrations/${integrationId}/verify`, undefined, { token: staffToken });
  if (res.status !== 204) throw new Error(`verifying integration ${integrationId} failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Connects a channel for an org as staff and verifies its binding: the integration that inbound traffic needs. */
export async function connectVerified<T extends { id: string } = { id: string } & Record<string, unknown>>(
  http: HttpClient,
  orgId: string,
  integration: Record<string, unknown>,
  staffToken: string,
): Promise<T> {
  const created = await http.post<T>(`/api/orgs/${orgId}/integrations`, integration, { token: staffToken });
  if (created.status !== 201) throw new Error(`connecting ${String(integration.channel)} failed: ${created.status} ${JSON.stringify(created.body)}`);
  await verifyIntegration(http, orgId, created.body.id, staffToken);
  return created.body;
}

/** The demo org Acme with the given channels connected and verified by the demo account manager. */
export async function acmeConnected(http: HttpClient, integrations: Array<Record<string, unknown>>): Promise<{ acmeId: string; am: string; integrationIds: string[] }> {
  const am = await http.login('account_manager@platform.demo.invalid', 'demo1234');
  const acmeId = (await http.get('/api/auth/me', { token: await http.login('client@acme.demo.invalid', 'demo1234') })).body.orgMemberships[0].orgId as string;
  const integrationIds: string[] = [];
  for (const integration of integrations) integrationIds.push((await connectVerified(http, acmeId, integration, am)).id);
  return { acmeId, am, integrationIds };
}

/** The vendor webhooks of the running app: every route marked @VendorWebhook, as its route catalog lists them. */
export function vendorWebhookPaths(app: TestApp): string[] {
  const paths = app.running.app
    .get(RouteCatalog)
    .routes()
    .filter((route) => route.vendorWebhook)
    .map((route) => route.path);
  return [...new Set(paths)].sort();
}

/** Stripe's own webhook: 404 while the billing provider is the manual one (the default). */
export const STRIPE_WEBHOOK = '/api/billing/stripe/webhook';

/** Who must have a vendor webhook: every channel, the generic billing provider and Stripe. Those missing from `paths`. */
export function vendorsWithoutWebhook(paths: readonly string[]): string[] {
  const has = (prefix: string) => paths.some((path) => path.startsWith(prefix));
  return [...CHANNEL_NAMES.filter((channel) => !has(`/api/channels/${channel}/`)), ...['/api/billing/provider/webhook', STRIPE_WEBHOOK].filter((path) => !paths.includes(path))];
}
