import { createHmac } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from '../../platform/crypto/crypto.js';

/**
 * Webhook signature checks (spec 5.6; API-MAP.md "Channels"): each takes the raw body bytes and
 * compares in constant time. Each returns false, never throws, and refuses when its secret is not
 * configured (fail closed).
 */

export const MAX_SIGNATURE_AGE_S = 300;

/**
 * The vendors' own names of the neutral headers (API-MAP.md "Channels"): a real vendor account
 * signs with its own header name, so each neutral header is also read under the vendor's name
 * (the neutral one wins when both are present). Lowercase, as Node gives them.
 */
const VENDOR_HEADER_NAMES: Readonly<Record<string, string>> = {
  'x-chat-a-signature': 'x-slack-signature',
  'x-chat-a-request-timestamp': 'x-slack-request-timestamp',
  'x-messaging-a-signature': 'x-twilio-signature',
  'x-messaging-b-secret-token': 'x-telegram-bot-api-secret-token',
};

/** A webhook header by its neutral name, else by its vendor's own name; the first value of a repeated one. */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const vendorName = VENDOR_HEADER_NAMES[name];
  return first(headers[name]) ?? (vendorName ? first(headers[vendorName]) : undefined);
}

/** chat-a: `X-Chat-A-Signature: v0=<hex HMAC-SHA256(secret, "v0:" + ts + ":" + body)>`, timestamp within 300 s. */
export function verifyChatA(secret: string | undefined, headers: Record<string, string | string[] | undefined>, rawBody: Buffer, nowS: number): boolean {
  if (!secret) return false;
  const ts = header(headers, 'x-chat-a-request-timestamp');
  const signature = header(headers, 'x-chat-a-signature');
  if (!ts || !signature || !/^\d{1,12}$/.test(ts)) return false;
  if (Math.abs(nowS - Number(ts)) > MAX_SIGNATURE_AGE_S) return false;
  const expected = `v0=${hmacSha256Hex(secret, Buffer.concat([Buffer.from(`v0:${ts}:`), rawBody]))}`;
  return safeEqual(signature, expected);
}

/**
 * messaging-a: `X-Messaging-A-Signature: base64(HMAC-SHA1(auth token, full URL + each form param
 * name + value, sorted by name))`.
 */
export function messagingASignature(authToken: string, fullUrl: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], fullUrl);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}

export function verifyMessagingA(authToken: string | undefined, signature: string | undefined, fullUrl: string, params: Record<string, string>): boolean {
  if (!authToken || !signature) return false;
  return safeEqual(signature, messagingASignature(authToken, fullUrl, params));
}

/** email inbound: `X-Email-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export function verifyEmailInbound(secret: string | undefined, signature: string | undefined, rawBody: Buffer): boolean {
  if (!secret || !signature) return false;
  return safeEqual(signature, `sha256=${hmacSha256Hex(secret, rawBody)}`);
}

/**
 * Mailgun (a Route forwarding raw MIME): the form's `signature` = hex HMAC-SHA256(webhook signing
 * key, timestamp + token), `timestamp` within 300 s. It covers neither the message nor the
 * recipient: the caller also refuses a token seen before.
 */
export function verifyMailgun(signingKey: string | undefined, form: { timestamp?: string; token?: string; signature?: string }, nowS: number): boolean {
  const { timestamp, token, signature } = form;
  if (!signingKey || !timestamp || !token || !signature || !/^\d{1,12}$/.test(timestamp) || token.length > 200) return false;
  if (Math.abs(nowS - Number(timestamp)) > MAX_SIGNATURE_AGE_S) return false;
  return safeEqual(signature, hmacSha256Hex(signingKey, timestamp + token));
}

/** Form-encoded body to its parameters (the last of a repeated name wins, as the vendor signs them). */
export function formParams(rawBody: Buffer): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
}
