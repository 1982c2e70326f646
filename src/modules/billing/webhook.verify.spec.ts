import { describe, expect, it } from 'vitest';
import { billingSignature, verifyBillingSignature } from './webhook.verify.js';

const secret = 'whsec_test';
const body = Buffer.from('{"id":"evt_1","type":"payment_failed","data":{"orgId":"x"}}');
const now = 1_800_000_000;

describe('X-Billing-Signature (API-MAP.md "Billing")', () => {
  it('accepts the HMAC-SHA256 of "<t>.<raw body>" within 300 s', () => {
    expect(verifyBillingSignature(secret, billingSignature(secret, now, body), body, now)).toBe(true);
    expect(verifyBillingSignature(secret, billingSignature(secret, now - 300, body), body, now)).toBe(true);
    expect(verifyBillingSignature(secret, billingSignature(secret, now + 300, body), body, now)).toBe(true);
  });
  it('refuses a stale or future timestamp, another secret, a changed body, and bad or missing headers', () => {
    expect(verifyBillingSignature(secret, billingSignature(secret, now - 301, body), body, now)).toBe(false);
    expect(verifyBillingSignature(secret, billingSignature(secret, now + 301, body), body, now)).toBe(false);
    expect(verifyBillingSignature(secret, billingSignature('other', now, body), body, now)).toBe(false);
    expect(verifyBillingSignature(secret, billingSignature(secret, now, body), Buffer.concat([body, Buffer.from(' ')]), now)).toBe(false);
    expect(verifyBillingSignature(secret, undefined, body, now)).toBe(false);
    expect(verifyBillingSignature(secret, `t=${now}`, body, now)).toBe(false);
    expect(verifyBillingSignature(secret, `v1=${'0'.repeat(64)}`, body, now)).toBe(false);
    expect(verifyBillingSignature(secret, `t=abc,v1=${'0'.repeat(64)}`, body, now)).toBe(false);
  });
  it('fails closed without a configured secret', () => {
    expect(verifyBillingSignature(undefined, billingSignature(secret, now, body), body, now)).toBe(false);
  });
  it('accepts any of several v1 signatures (secret rotation)', () => {
    const good = billingSignature(secret, now, body).split(',')[1];
    expect(verifyBillingSignature(secret, `t=${now},v1=${'a'.repeat(64)},${good}`, body, now)).toBe(true);
  });
});
