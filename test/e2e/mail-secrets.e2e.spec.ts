import { Clock } from '../../src/platform/clock/clock.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbService } from '../../src/platform/db/db.service.js';
import { MailService, SECRET_MAIL_RETENTION_MS } from '../../src/platform/mail/mail.service.js';
import { waitForMail } from '../support/mail.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

interface Mail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  erasedAt: string | null;
}

describe('the development outbox keeps codes and links 24 hours, then erases them', () => {
  let app: TestApp;
  const outbox = async (to: string) => (await app.get(`/api/dev/mail?to=${encodeURIComponent(to)}&limit=50`)).body as Mail[];
  const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('marks every mail with a sign-in code, reset code, onboarding code or invite link, and erases it after 24 hours only', async () => {
    const am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    // A sign-in code.
    expect((await app.post('/api/auth/request-otp', { email: 'client@acme.demo.invalid' })).status).toBe(204);
    await waitForMail(app.url, 'client@acme.demo.invalid', (m) => /sign-in code/.test(m.subject), 'with the sign-in code');
    // A reset code.
    const me = await app.get('/api/auth/me', { token: await app.login('expert@platform.demo.invalid', PASSWORD) });
    expect((await app.post(`/api/admin/users/${me.body.id}/password-reset`, {}, { token: superadmin })).status).toBe(204);
    // An invite link, then an onboarding code.
    const slug = `mail-secrets-${Date.now().toString(36)}`;
    const org = await app.post(
      '/api/am/orgs',
      { legalName: 'Mail Secrets', slug, industry: 'finance', corporateDomains: [`${slug}.example.com`], adminEmail: `owner@${slug}.example.com`, website: 'https://m.example.com', timezone: 'UTC' },
      { token: am },
    );
    expect(org.status).toBe(201);
    const invite = await app.post(`/api/am/orgs/${org.body.id}/invite`, {}, { token: am });
    expect(invite.status).toBe(200);
    const token = new URL(invite.body.onboardingUrl).searchParams.get('token')!;
    expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204);
    // A mail with no secret in it.
    await app.running.app.get(DbService).transaction(() => app.running.app.get(MailService).send({ to: 'plain@example.com', subject: 'Order 123456 shipped', text: 'Nothing secret' }));

    const [signIn] = await outbox('client@acme.demo.invalid');
    const [reset] = await outbox('expert@platform.demo.invalid');
    const [otp, inviteMail] = await outbox(`owner@${slug}.example.com`);
    const secrets = { signIn: codeIn(signIn!.text), reset: codeIn(reset!.text), otp: codeIn(otp!.text), link: token };
    expect(signIn!.subject).toContain(secrets.signIn);
    expect(otp!.subject).toContain(secrets.otp);
    expect(inviteMail!.text).toContain(token);
    for (const mail of [signIn, reset, otp, inviteMail]) expect(mail!.erasedAt).toBeNull();

    // Within the 24 hours: kept as they are.
    const mail = app.running.app.get(MailService);
    // Business time moved on (a trial, an invite's expiry) erases nothing: retention is wall time.
    app.running.app.get(Clock).advance(7 * SECRET_MAIL_RETENTION_MS);
    expect(await mail.eraseExpiredSecrets()).toBe(0);
    // The sweep's own time (the system clock) a day on, less a minute, then plus a minute.
    const inADay = (extraMs: number) => new Date(Date.now() + SECRET_MAIL_RETENTION_MS + extraMs);
    expect(await mail.eraseExpiredSecrets(inADay(-60_000))).toBe(0);
    expect((await outbox('client@acme.demo.invalid'))[0]!.text).toContain(secrets.signIn);

    expect(await mail.eraseExpiredSecrets(inADay(60_000))).toBeGreaterThanOrEqual(4);
    const all = (await app.get('/api/dev/mail?limit=500')).body as Mail[];
    const erased = [
      ...(await outbox('client@acme.demo.invalid')).slice(0, 1),
      ...(await outbox('expert@platform.demo.invalid')).slice(0, 1),
      ...(await outbox(`owner@${slug}.example.com`)).slice(0, 2),
    ];
    for (const m of erased) {
      expect(m).toMatchObject({ text: '', html: null, erasedAt: expect.any(String) });
    }
    expect(erased.map((m) => m.subject)).toEqual(['Your sign-in code: ******', 'Reset your password', 'Your Mail Secrets onboarding code: ******', "You're invited to set up Mail Secrets"]);
    const listed = JSON.stringify(all);
    for (const secret of Object.values(secrets)) expect(listed).not.toContain(secret);
    // The mail without a secret is listed whole.
    expect(await outbox('plain@example.com')).toEqual([expect.objectContaining({ subject: 'Order 123456 shipped', text: 'Nothing secret', erasedAt: null })]);
  });
});
