import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clock } from '../../src/platform/clock/clock.js';
import { codeMailedBy } from '../support/mail.js';
import { sessionOf } from '../support/sessions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const DAY = 86_400_000;

describe('client onboarding: invite, onboarding code, Phase 2 (spec 3.2, 4.2, 4.3)', () => {
  let app: TestApp;
  let am: string;
  let n = 0;
  const newOrg = async (over: Record<string, unknown> = {}) => {
    const slug = `ob-${++n}-${Date.now().toString(36)}`;
    const res = await app.post(
      '/api/am/orgs',
      {
        legalName: `Org ${slug}`,
        slug,
        industry: 'finance',
        corporateDomains: [`${slug}.example.com`],
        adminEmail: `owner@${slug}.example.com`,
        website: 'https://o.example.com',
        timezone: 'Europe/Berlin',
        ...over,
      },
      { token: am },
    );
    expect(res.status).toBe(201);
    return res.body as { id: string; slug: string; adminEmail: string };
  };
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
  // The code may go out from a queued job: wait for the new mail that carries it.
  const signInWithCode = async (token: string, email: string) => {
    const code = await codeMailedBy(app.url, email, async () => expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204));
    const res = await app.post('/api/auth/verify-invite-otp', { token, code });
    expect(res.status).toBe(200);
    return res.body.token as string;
  };

  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('walks AM create -> invite -> email -> code -> complete -> active with a 30-day trial', async () => {
    const org = await newOrg();
    const before = await app.get(`/api/am/orgs/${org.id}/onboarding-link`, { token: am });
    expect(before.body.expiresAt).toBeNull();
    const invite = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    expect(invite.status).toBe(200);
    expect(invite.body.org.status).toBe('pending_client_confirmation');
    expect(invite.body.onboardingUrl).toBe(before.body.onboardingUrl);
    expect(new Date(invite.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(7 * DAY - 60_000);
    const mail = (await app.get(`/api/dev/mail?to=${org.adminEmail}`)).body as Array<{ text: string }>;
    expect(mail[0]!.text).toContain(invite.body.onboardingUrl);
    const token = tokenOf(invite.body.onboardingUrl);
    expect(token.length).toBeGreaterThanOrEqual(43);

    const view = await app.get(`/api/onboarding/${token}`);
    expect(view.body).toMatchObject({ adminEmail: org.adminEmail, specialistPreassigned: false, org: { slug: org.slug } });
    expect((await app.get(`/api/onboarding/${token}/specialist`)).status).toBe(404);
    const pool = (await app.get(`/api/onboarding/${token}/specialists`)).body.items as Array<{ id: string; slug: string }>;
    const pick = pool.find((s) => s.slug === 'priya-nair')!;

    const session = await signInWithCode(token, org.adminEmail);
    const missingPick = await app.post(`/api/onboarding/${token}/complete`, { legalName: 'Final Name GmbH', slug: org.slug, password: 'a strong password', name: 'Olga Owner' }, { token: session });
    expect(missingPick.status).toBe(400);
    const done = await app.post(
      `/api/onboarding/${token}/complete`,
      { legalName: 'Final Name GmbH', slug: `${org.slug}-final`, password: 'a strong password', name: 'Olga Owner', specialistId: pick.id },
      { token: session },
    );
    expect(done.status).toBe(200);
    expect(done.body.org).toMatchObject({ status: 'active', legalName: 'Final Name GmbH', slug: `${org.slug}-final`, trialStartedAt: expect.any(String) });
    const trialDays = (Date.parse(`${done.body.org.trialEndDate}T00:00:00Z`) - Date.now()) / DAY;
    expect(trialDays).toBeGreaterThan(28);
    expect(trialDays).toBeLessThan(31);
    const me = await app.get('/api/auth/me', { token: done.body.token });
    expect(me.body).toMatchObject({ email: org.adminEmail, name: 'Olga Owner', platformRole: 'org_admin', landing: '/client/chat' });
    // Both tokens name a server-side session of the admin (API-MAP "Sessions, sockets and hardening").
    expect(await sessionOf(app, session)).toMatchObject({ userId: me.body.id, method: 'invite_otp', endedAt: null });
    expect(await sessionOf(app, done.body.token)).toMatchObject({ userId: me.body.id, method: 'onboarding', endedAt: null });
    expect(me.body.orgMemberships[0]).toMatchObject({ orgRole: 'owner' });
    expect((await app.post('/api/auth/login', { email: org.adminEmail, password: 'a strong password' })).status).toBe(200);
    const assigned = (await app.get(`/api/am/orgs/${org.id}/specialist-assignments`, { token: am })).body.items;
    expect(assigned).toEqual([expect.objectContaining({ specialistId: pick.id, isPrimary: true })]);
    expect((await app.get(`/api/dev/mail?to=account_manager@platform.demo.invalid&limit=1`)).body[0].subject).toContain('completed onboarding');

    // Spent: everything answers 410 invite_used; the slug is reserved and immutable.
    for (const res of [await app.get(`/api/onboarding/${token}`), await app.post('/api/auth/send-invite-otp', { token })]) {
      expect(res.status).toBe(410);
      expect(res.body.code).toBe('invite_used');
    }
    expect((await app.patch(`/api/am/orgs/${org.id}`, { slug: 'another-one' }, { token: am })).status).toBe(409);
    expect((await app.get(`/api/am/slug-availability?slug=${org.slug}-final`, { token: am })).body.reason).toBe('taken');
  });

  it('lets the onboarding code sign in once: a second verify is 410 invite_used', async () => {
    const org = await newOrg();
    const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
    await signInWithCode(token, org.adminEmail);
    await app.post('/api/auth/send-invite-otp', { token }).then((r) => expect(r.status).toBe(410));
    const again = await app.post('/api/auth/verify-invite-otp', { token, code: '123456' });
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('invite_used');
  });

  it('expires after 7 days (410 invite_expired); a resend extends the window and keeps the link', async () => {
    const clock = app.running.app.get(Clock);
    const org = await newOrg();
    const first = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    const token = tokenOf(first.body.onboardingUrl);
    clock.advance(7 * DAY + 60_000);
    const expired = await app.get(`/api/onboarding/${token}`);
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('invite_expired');
    const resent = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    expect(resent.body.onboardingUrl).toBe(first.body.onboardingUrl);
    expect(new Date(resent.body.expiresAt).getTime()).toBeGreaterThan(new Date(first.body.expiresAt).getTime());
    expect((await app.get(`/api/onboarding/${token}`)).status).toBe(200);
  });

  it('answers 404 for an unknown token', async () => {
    expect((await app.get('/api/onboarding/this-token-does-not-exist-anywhere-at-all')).status).toBe(404);
    expect((await app.post('/api/auth/send-invite-otp', { token: 'this-token-does-not-exist-anywhere-at-all' })).status).toBe(404);
  });

  it('skips the pick for a preassigned Specialist and shows its rate', async () => {
    const org = await newOrg();
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    const maya = pool.find((s) => s.slug === 'maya-chen')!;
    await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: maya.id, monthlyRate: 990, overrideReason: 'pilot' }, { token: am });
    const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
    expect((await app.get(`/api/onboarding/${token}`)).body.specialistPreassigned).toBe(true);
    const preview = await app.get(`/api/onboarding/${token}/specialist`);
    expect(preview.body).toMatchObject({ slug: 'maya-chen', monthlyRate: { amount: 990, currency: 'USD', source: 'override' } });
    const session = await signInWithCode(token, org.adminEmail);
    const done = await app.post(`/api/onboarding/${token}/complete`, { legalName: 'Pre', slug: org.slug, password: 'a strong password', name: 'Pat' }, { token: session });
    expect(done.status).toBe(200);
    expect((await app.get(`/api/am/orgs/${org.id}/specialist-assignments`, { token: am })).body.items).toHaveLength(1);
  });

  it('honours trial mode none and the AM trial date', async () => {
    const none = await newOrg({ trialMode: 'none' });
    const t1 = tokenOf((await app.post(`/api/am/orgs/${none.id}/invite`, {}, { token: am })).body.onboardingUrl);
    await app.post(`/api/am/orgs/${none.id}/specialist`, { specialistId: (await app.get('/api/am/specialists', { token: am })).body.items[0].id }, { token: am });
    const s1 = await signInWithCode(t1, none.adminEmail);
    const d1 = await app.post(`/api/onboarding/${t1}/complete`, { legalName: 'N', slug: none.slug, password: 'a strong password', name: 'N' }, { token: s1 });
    expect(d1.body.org).toMatchObject({ status: 'active', trialEndDate: null });

    const dated = await newOrg();
    const end = new Date(Date.now() + 45 * DAY).toISOString().slice(0, 10);
    const inv = await app.post(`/api/am/orgs/${dated.id}/invite`, { trialEndDate: end, startDate: end }, { token: am });
    expect(inv.body.org).toMatchObject({ trialEndDate: end, startDate: end });
    expect((await app.post(`/api/am/orgs/${dated.id}/invite`, { trialEndDate: '2001-01-01' }, { token: am })).status).toBe(400);
  });

  it('re-checks the gate on invite (409 phase0_gate_failed)', async () => {
    const nameless = await app.demoLogin('account_manager', 'acme');
    await app.patch('/api/am/profile', { name: '' }, { token: nameless });
    const org = (
      await app.post(
        '/api/am/orgs',
        {
          legalName: 'Gate',
          slug: `gate-${Date.now().toString(36)}`,
          industry: 'finance',
          corporateDomains: ['gate.example.com'],
          adminEmail: 'g@gate.example.com',
          website: 'https://g.example.com',
          timezone: 'UTC',
        },
        { token: nameless },
      )
    ).body;
    const res = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: nameless });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'phase0_gate_failed', details: { missing: ['amProfileName'] } });
    await app.patch('/api/am/profile', { name: 'Named Again' }, { token: nameless });
  });

  it('lets exactly one of two orgs confirming the same slug win; the loser stays pending with a usable invite', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const pool = (await app.get('/api/am/specialists', { token: am })).body.items as Array<{ id: string }>;
    const sessions: Array<{ token: string; session: string }> = [];
    for (const org of [a, b]) {
      await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: pool[0]!.id }, { token: am });
      const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
      sessions.push({ token, session: await signInWithCode(token, org.adminEmail) });
    }
    const wanted = `contested-${Date.now().toString(36)}`;
    const results = await Promise.all(
      sessions.map((s) => app.post(`/api/onboarding/${s.token}/complete`, { legalName: 'Race', slug: wanted, password: 'a strong password', name: 'Racer' }, { token: s.session })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loserIdx = results.findIndex((r) => r.status === 409);
    const loserOrg = [a, b][loserIdx]!;
    const loserState = (await app.get(`/api/am/orgs/${loserOrg.id}`, { token: am })).body;
    expect(loserState).toMatchObject({ status: 'pending_client_confirmation', slug: loserOrg.slug });
    const loser = sessions[loserIdx]!;
    expect((await app.get(`/api/onboarding/${loser.token}`)).status).toBe(200);
    const retry = await app.post(`/api/onboarding/${loser.token}/complete`, { legalName: 'Race', slug: loserOrg.slug, password: 'a strong password', name: 'Racer' }, { token: loser.session });
    expect(retry.status).toBe(200);
  });

  it('lets only the invited admin complete', async () => {
    const org = await newOrg();
    const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
    const stranger = await app.login('client@acme.demo.invalid', PASSWORD);
    expect((await app.post(`/api/onboarding/${token}/complete`, { legalName: 'X', slug: org.slug, password: 'a strong password', name: 'X' }, { token: stranger })).status).toBe(403);
    expect((await app.post(`/api/onboarding/${token}/complete`, { legalName: 'X', slug: org.slug, password: 'a strong password', name: 'X' })).status).toBe(401);
  });

  it('follows a changed admin email: the former address loses the invite and the membership it gave, the new one gets a new link', async () => {
    const org = await newOrg();
    const first = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    const oldToken = tokenOf(first.body.onboardingUrl);
    const formerSession = await signInWithCode(oldToken, org.adminEmail);
    expect((await app.get('/api/auth/me', { token: formerSession })).body.orgMemberships).toEqual([expect.objectContaining({ orgId: org.id, orgRole: 'owner' })]);

    const newEmail = `boss@${org.slug}.example.com`;
    const patched = await app.patch(`/api/am/orgs/${org.id}`, { adminEmail: newEmail }, { token: am });
    expect(patched.status).toBe(200);
    // The former admin's session holds nothing of the org any more; the link mailed to them opens nothing.
    expect((await app.get('/api/auth/me', { token: formerSession })).body.orgMemberships).toEqual([]);
    expect((await app.post(`/api/onboarding/${oldToken}/complete`, { legalName: 'X', slug: org.slug, password: 'a strong password', name: 'X' }, { token: formerSession })).status).toBe(404);
    for (const res of [await app.get(`/api/onboarding/${oldToken}`), await app.post('/api/auth/send-invite-otp', { token: oldToken })]) expect(res.status).toBe(404);

    // The AM sends the invite again: the new link reaches the new address, whose code signs in its own user.
    const link = await app.get(`/api/am/orgs/${org.id}/onboarding-link`, { token: am });
    const resent = await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    expect(resent.body.onboardingUrl).toBe(link.body.onboardingUrl);
    expect(resent.body.onboardingUrl).not.toBe(first.body.onboardingUrl);
    const mail = (await app.get(`/api/dev/mail?to=${newEmail}`)).body as Array<{ text: string }>;
    expect(mail[0]!.text).toContain(resent.body.onboardingUrl);
    const newToken = tokenOf(resent.body.onboardingUrl);
    expect((await app.get(`/api/onboarding/${newToken}`)).body.adminEmail).toBe(newEmail);
    const session = await signInWithCode(newToken, newEmail);
    const me = await app.get('/api/auth/me', { token: session });
    expect(me.body).toMatchObject({ email: newEmail, orgMemberships: [expect.objectContaining({ orgId: org.id, orgRole: 'owner' })] });
    const pick = (await app.get(`/api/onboarding/${newToken}/specialists`)).body.items[0];
    const done = await app.post(
      `/api/onboarding/${newToken}/complete`,
      { legalName: 'New Boss Ltd', slug: org.slug, password: 'a strong password', name: 'New Boss', specialistId: pick.id },
      { token: session },
    );
    expect(done.status).toBe(200);
    expect(done.body.org.status).toBe('active');
    // Completed: a later change of the address is an edit of the org, the invite stays spent.
    expect((await app.patch(`/api/am/orgs/${org.id}`, { adminEmail: `other@${org.slug}.example.com` }, { token: am })).status).toBe(200);
    expect((await app.get('/api/auth/me', { token: done.body.token })).body.orgMemberships).toEqual([expect.objectContaining({ orgId: org.id, orgRole: 'owner' })]);
  });

  it('refuses an admin email of an internal user after the invite too (409), and changes nothing', async () => {
    const org = await newOrg();
    await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am });
    const refused = await app.patch(`/api/am/orgs/${org.id}`, { adminEmail: 'expert@platform.demo.invalid' }, { token: am });
    expect(refused.status).toBe(409);
    expect((await app.get(`/api/am/orgs/${org.id}`, { token: am })).body.adminEmail).toBe(org.adminEmail);
  });

  it('takes the Phase 2 slug exactly as sent: outside the pattern is 400 and nothing changes', async () => {
    const org = await newOrg();
    const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
    const session = await signInWithCode(token, org.adminEmail);
    const pick = (await app.get(`/api/onboarding/${token}/specialists`)).body.items[0];
    const body = { legalName: 'Case Co', password: 'a strong password', name: 'Olga Owner', specialistId: pick.id };
    for (const slug of [org.slug.toUpperCase(), `${org.slug}-Final`, ` ${org.slug}`]) {
      const res = await app.post(`/api/onboarding/${token}/complete`, { ...body, slug }, { token: session });
      expect(res.status, slug).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'slug' }] });
    }
    expect((await app.get(`/api/am/orgs/${org.id}`, { token: am })).body).toMatchObject({ status: 'pending_client_confirmation', slug: org.slug });
    expect((await app.post(`/api/onboarding/${token}/complete`, { ...body, slug: `${org.slug}-final` }, { token: session })).status).toBe(200);
  });

  it('regenerates every workspace alias with the slug the client confirms; the old ones still route inbound mail', async () => {
    const { AssignmentsService } = await import('../../src/modules/specialists/index.js');
    const assignments = app.running.app.get(AssignmentsService);
    const base = `globex-${Date.now().toString(36)}`;
    const org = await newOrg({ slug: `${base}-industries` });
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    for (const slug of ['emilie-laurent', 'maya-chen']) {
      expect((await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: pool.find((s) => s.slug === slug)!.id }, { token: am })).status).toBe(201);
    }
    const aliasesOf = async () => ((await app.get(`/api/am/orgs/${org.id}/specialist-assignments`, { token: am })).body.items as Array<{ id: string; email_alias: string }>).map((a) => a.email_alias);
    const before = await aliasesOf();
    expect(before).toEqual([expect.stringMatching(new RegExp(`^emilie\\.${base}-industries@`)), expect.stringMatching(new RegExp(`^maya\\.${base}-industries@`))]);

    const token = tokenOf((await app.post(`/api/am/orgs/${org.id}/invite`, {}, { token: am })).body.onboardingUrl);
    const session = await signInWithCode(token, org.adminEmail);
    const done = await app.post(`/api/onboarding/${token}/complete`, { legalName: 'Globex', slug: base, password: 'a strong password', name: 'Olga Owner' }, { token: session });
    expect(done.status).toBe(200);
    const after = await aliasesOf();
    const domain = before[0]!.split('@')[1];
    expect(after).toEqual([`emilie.${base}@${domain}`, `maya.${base}@${domain}`]);
    // The old addresses are rebrand aliases: they still find their OSA (the email channel's lookup).
    for (const [i, old] of before.entries()) expect((await assignments.findByAlias(old))?.email_alias).toBe(after[i]);
    const audit = await app.get(`/api/ops/audit?action=osa.alias_regenerated`, { token: await app.login('superadmin@platform.demo.invalid', PASSWORD) });
    expect(audit.body.items.filter((e: { orgId: string }) => e.orgId === org.id)).toHaveLength(2);

    // The released slug can be taken again, but never its old addresses: they stay with Globex.
    const other = await newOrg({ slug: `${base}-industries` });
    const emilie = await app.post(`/api/am/orgs/${other.id}/specialist`, { specialistId: pool.find((s) => s.slug === 'emilie-laurent')!.id }, { token: am });
    expect(emilie.status).toBe(201);
    expect(emilie.body.email_alias).toBe(`emilie2.${base}-industries@${domain}`);
    expect((await assignments.findByAlias(before[0]!))?.orgId).toBe(org.id);
  });

  it("regenerates the aliases when the AM changes a pending org's slug, and back again", async () => {
    const base = `rename-${Date.now().toString(36)}`;
    const org = await newOrg({ slug: base });
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    const osa = (await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: pool.find((s) => s.slug === 'maya-chen')!.id }, { token: am })).body;
    const domain = osa.email_alias.split('@')[1];
    expect((await app.patch(`/api/am/orgs/${org.id}`, { slug: `${base}-two` }, { token: am })).status).toBe(200);
    expect((await app.get(`/api/am/orgs/${org.id}/specialist-assignments/${osa.id}`, { token: am })).body.email_alias).toBe(`maya.${base}-two@${domain}`);
    // Back to the first slug: the OSA takes its own former address back.
    expect((await app.patch(`/api/am/orgs/${org.id}`, { slug: base }, { token: am })).status).toBe(200);
    expect((await app.get(`/api/am/orgs/${org.id}/specialist-assignments/${osa.id}`, { token: am })).body.email_alias).toBe(`maya.${base}@${domain}`);
  });
});

describe('client portal basics and org lifecycle (spec 3.2, 4.6)', () => {
  let app: TestApp;
  let am: string;
  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows clients their Specialists and the trial banner data', async () => {
    const { OrgsService } = await import('../../src/modules/orgs/index.js');
    const acme = (await app.running.app.get(OrgsService).findBySlug('acme'))!;
    const pool = (await app.get('/api/am/specialists', { token: am })).body.items as Array<{ id: string; name: string; slug: string }>;
    // The demo org is seeded with Émilie Laurent as its primary Specialist.
    const emilie = pool.find((s) => s.slug === 'emilie-laurent')!;
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const list = await app.get('/api/client/specialists', { token: client });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([expect.objectContaining({ specialistId: emilie.id, name: emilie.name, isPrimary: true, email_alias: expect.stringMatching(/^emilie\.acme@/) })]);
    expect(JSON.stringify(list.body)).not.toMatch(/expert/i);
    const trial = await app.get('/api/client/trial-info', { token: client });
    expect(trial.body).toMatchObject({ orgId: acme.id, status: 'active', showBanner: false });
    expect((await app.get(`/api/client/trial-info?orgId=00000000-0000-4000-8000-000000000000`, { token: client })).status).toBe(404);
    expect((await app.get('/api/client/specialists', { token: await app.login('expert@platform.demo.invalid', PASSWORD) })).status).toBe(404);
  });

  it('moves trials to trial_ending 7 days before their end and archives setups untouched for 90 days', async () => {
    const { OrgsService } = await import('../../src/modules/orgs/index.js');
    const orgs = app.running.app.get(OrgsService);
    const clock = app.running.app.get(Clock);
    const mk = async (slug: string) =>
      (
        await app.post(
          '/api/am/orgs',
          { legalName: slug, slug, industry: 'other', corporateDomains: [`${slug}.example.com`], adminEmail: `a@${slug}.example.com`, website: 'https://x.example.com', timezone: 'UTC' },
          { token: am },
        )
      ).body as { id: string };
    const stale = await mk(`stale-${Date.now().toString(36)}`);
    const active = await mk(`trial-${Date.now().toString(36)}`);
    await app.post(`/api/am/orgs/${active.id}/finish`, undefined, { token: am });
    const dated = await app.patch(`/api/am/orgs/${active.id}`, { trialEndDate: new Date(Date.now() + 20 * DAY).toISOString().slice(0, 10) }, { token: am });
    expect(dated.status).toBe(200);
    const soon = await orgs.runLifecycleSweep(clock.now());
    expect(soon.trialEnding).not.toContain(active.id);
    expect(soon.archived).not.toContain(stale.id);
    const later = await orgs.runLifecycleSweep(new Date(Date.now() + 91 * DAY));
    expect(later.trialEnding).toContain(active.id);
    expect(later.archived).toContain(stale.id);
    expect((await app.get(`/api/am/orgs/${stale.id}`, { token: am })).body.status).toBe('deactivated');
    expect((await app.get(`/api/am/orgs/${active.id}`, { token: am })).body.status).toBe('trial_ending');
  });

  it('lets a superadmin add a rebrand alias that finds the org', async () => {
    const { OrgsService } = await import('../../src/modules/orgs/index.js');
    const acme = (await app.running.app.get(OrgsService).findBySlug('acme'))!;
    const superadmin = await app.login('superadmin@platform.demo.invalid', PASSWORD);
    expect((await app.post(`/api/am/orgs/${acme.id}/slug-aliases`, { slug: 'acme-rebrand' }, { token: am })).status).toBe(403);
    const res = await app.post(`/api/am/orgs/${acme.id}/slug-aliases`, { slug: 'acme-rebrand' }, { token: superadmin });
    expect(res.status).toBe(201);
    expect((await app.running.app.get(OrgsService).findBySlug('acme-rebrand'))!.id).toBe(acme.id);
    expect((await app.get('/api/am/slug-availability?slug=acme-rebrand', { token: am })).body.reason).toBe('taken');
    const viaAlias = await app.get('/api/auth/me', { token: await app.demoLogin('client', 'acme-rebrand') });
    expect(viaAlias.body.orgMemberships[0].orgId).toBe(acme.id);
  });
});
