import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formParams, header, messagingASignature, verifyChatA, verifyEmailInbound, verifyMailgun, verifyMessagingA } from './channels.verify.js';

const body = Buffer.from('{"type":"event_callback","team_id":"T1"}');
const now = 1_800_000_000;
const chatASig = (secret: string, ts: number, raw: Buffer) => `v0=${createHmac('sha256', secret).update(`v0:${ts}:${raw.toString()}`).digest('hex')}`;

describe('chat-a signature', () => {
  it('accepts the right signature within 300 s and nothing else', () => {
    const headers = (ts: number, sig: string) => ({ 'x-chat-a-request-timestamp': String(ts), 'x-chat-a-signature': sig });
    expect(verifyChatA('s3cret', headers(now, chatASig('s3cret', now, body)), body, now)).toBe(true);
    expect(verifyChatA('s3cret', headers(now - 299, chatASig('s3cret', now - 299, body)), body, now)).toBe(true);
    expect(verifyChatA('s3cret', headers(now - 301, chatASig('s3cret', now - 301, body)), body, now)).toBe(false);
    expect(verifyChatA('s3cret', headers(now, chatASig('other', now, body)), body, now)).toBe(false);
    expect(verifyChatA('s3cret', headers(now, chatASig('s3cret', now, body)), Buffer.from(`${body} `), now)).toBe(false);
    expect(verifyChatA('s3cret', {}, body, now)).toBe(false);
    // Unconfigured: refuses even a request signed with an empty secret.
    expect(verifyChatA(undefined, headers(now, chatASig('', now, body)), body, now)).toBe(false);
  });
});

describe('messaging-a signature', () => {
  it('signs the full URL and the sorted form parameters', () => {
    const params = { To: '+15550001', From: '+15550002', Body: 'Hi', MessageSid: 'SM1' };
    const url = 'https://service.example.com/api/channels/messaging-a/inbound';
    const expected = createHmac('sha1', 'tok').update(`${url}BodyHiFrom+15550002MessageSidSM1To+15550001`).digest('base64');
    expect(messagingASignature('tok', url, params)).toBe(expected);
    expect(verifyMessagingA('tok', expected, url, params)).toBe(true);
    expect(verifyMessagingA('tok', expected, `${url}?x=1`, params)).toBe(false);
    expect(verifyMessagingA('tok', expected, url, { ...params, Body: 'Hi!' })).toBe(false);
    expect(verifyMessagingA(undefined, expected, url, params)).toBe(false);
    expect(formParams(Buffer.from('Body=Hello+there&From=%2B1555'))).toEqual({ Body: 'Hello there', From: '+1555' });
  });
});

describe('email inbound signature', () => {
  it('is an HMAC-SHA256 of the raw body', () => {
    const sig = `sha256=${createHmac('sha256', 'k').update(body).digest('hex')}`;
    expect(verifyEmailInbound('k', sig, body)).toBe(true);
    expect(verifyEmailInbound('k', sig.toUpperCase(), body)).toBe(false);
    expect(verifyEmailInbound('k', undefined, body)).toBe(false);
    expect(verifyEmailInbound(undefined, sig, body)).toBe(false);
  });
});

describe('Mailgun signature (hex HMAC-SHA256 of timestamp + token with the webhook signing key)', () => {
  const token = 'a'.repeat(50);
  const sign = (key: string, timestamp: string, t = token) =>
    createHmac('sha256', key)
      .update(timestamp + t)
      .digest('hex');
  it('accepts the right signature within 300 s and nothing else', () => {
    const ts = String(now);
    expect(verifyMailgun('key-1', { timestamp: ts, token, signature: sign('key-1', ts) }, now)).toBe(true);
    expect(verifyMailgun('key-1', { timestamp: String(now - 299), token, signature: sign('key-1', String(now - 299)) }, now)).toBe(true);
    expect(verifyMailgun('key-1', { timestamp: String(now - 301), token, signature: sign('key-1', String(now - 301)) }, now)).toBe(false);
    expect(verifyMailgun('key-1', { timestamp: ts, token, signature: sign('key-2', ts) }, now)).toBe(false);
    expect(verifyMailgun('key-1', { timestamp: ts, token: `${token}b`, signature: sign('key-1', ts) }, now)).toBe(false);
    expect(verifyMailgun('key-1', { timestamp: `${ts}.5`, token, signature: sign('key-1', `${ts}.5`) }, now)).toBe(false);
    expect(verifyMailgun('key-1', { timestamp: ts, token }, now)).toBe(false);
    expect(verifyMailgun(undefined, { timestamp: ts, token, signature: sign('', ts) }, now)).toBe(false);
  });
});

describe("webhook headers under the vendors' own names", () => {
  it('reads each neutral header, else its vendor name; the neutral one wins', () => {
    expect(header({ 'x-slack-signature': 'v0=a', 'x-slack-request-timestamp': '1' }, 'x-chat-a-signature')).toBe('v0=a');
    expect(header({ 'x-slack-request-timestamp': '1' }, 'x-chat-a-request-timestamp')).toBe('1');
    expect(header({ 'x-twilio-signature': 'sig' }, 'x-messaging-a-signature')).toBe('sig');
    expect(header({ 'x-telegram-bot-api-secret-token': 'tok' }, 'x-messaging-b-secret-token')).toBe('tok');
    expect(header({ 'x-messaging-a-signature': 'ours', 'x-twilio-signature': 'theirs' }, 'x-messaging-a-signature')).toBe('ours');
    expect(header({ 'x-email-signature': ['first', 'second'] }, 'x-email-signature')).toBe('first');
    expect(header({ 'x-other': 'x' }, 'x-email-signature')).toBeUndefined();
  });

  it('verifies a chat-a call signed under the vendor names', () => {
    const headers = { 'x-slack-request-timestamp': String(now), 'x-slack-signature': chatASig('s3cret', now, body) };
    expect(verifyChatA('s3cret', headers, body, now)).toBe(true);
  });
});
