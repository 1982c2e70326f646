import { hmacSha256Hex, safeEqual } from '../../platform/crypto/crypto.js';

/** How far the signed timestamp may be from our clock (API-MAP.md "Billing"). */
export const BILLING_SIGNATURE_TOLERANCE_S = 300;

/** `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function billingSignature(secret: string, t: number, rawBody: Buffer | string): string {
  return `t=${t},v1=${hmacSha256Hex(secret, Buffer.concat([Buffer.from(`${t}.`), Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody)]))}`;
}

/**
 * Checks the header over the exact bytes received, in constant time; false (never a throw) when
 * the secret is not configured, the header is missing or malformed, `t` is more than 300 s away,
 * or no `v1` matches (several `v1` entries are allowed while a secret rotates).
 */
export function verifyBillingSignature(secret: string | undefined, header: string | undefined, rawBody: Buffer | undefined, nowS: number): boolean {
  if (!secret || !header || !rawBody) return false;
  const parts = header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v!);
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(nowS - Number(t)) > BILLING_SIGNATURE_TOLERANCE_S) return false;
  const expected = billingSignature(secret, Number(t), rawBody).split('v1=')[1]!;
  return signatures.map((s) => safeEqual(s, expected)).includes(true);
}
