import { createHmac } from 'node:crypto';
import type { HttpClient } from './http.js';

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
    .update(Object.keys(params).sort().reduce((acc, k) => acc + k + params[k], `${publicUrl}${path}`))
    .digest('base64');
  return {
    path,
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-messaging-a-signature': signature },
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
export async function connectVerified<T extends { id: string } = { id: string } & Record<string, unknown>>(http: HttpClient, orgId: string, integration: Record<string, unknown>, staffToken: string): Promise<T> {
  const created = await http.post<T>(`/api/orgs/${orgId}/integrations`, integration, { token: staffToken });
  if (created.status !== 201) throw new Error(`connecting ${String(integration.channel)} failed: ${created.status} ${JSON.stringify(created.body)}`);
  await verifyIntegration(http, orgId, created.body.id, staffToken);
  return created.body;
}
