import { createHmac } from 'node:crypto';

/** A signed messaging-a inbound call, as the vendor makes it (spec 5.6: HMAC-SHA1 over the URL and the sorted form fields). */
export function messagingACall(publicUrl: string, authToken: string, params: Record<string, string>) {
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
