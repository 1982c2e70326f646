import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DbService } from '../../src/platform/db/db.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows);

interface Notification {
  id: string;
  userId: string;
  type: string;
  title: string | null;
  message: string | null;
  meta: Record<string, unknown> | null;
  readAt: string | null;
}

describe('notifications that say what happened (spec 4.5, 6.2)', () => {
  let app: TestApp;
  const t: Record<string, string> = {};
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    app = await startTestApp();
    for (const [key, email] of Object.entries({
      am: 'account_manager@platform.demo.invalid',
      expert: 'expert@platform.demo.invalid',
      client: 'client@acme.demo.invalid',
      admin: 'org_admin@acme.demo.invalid',
    })) {
      t[key] = await app.login(email, PASSWORD);
      ids[key] = (await app.get('/api/auth/me', { token: t[key] })).body.id;
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  const inbox = async (who: string) => (await app.get('/api/notifications?limit=200', { token: t[who] })).body as Notification[];

  it("PATCH /notifications/read-all marks the caller's unread ones read, and nobody else's", async () => {
    for (const who of ['client', 'client', 'admin']) {
      expect((await app.post('/api/notifications', { userId: ids[who], type: 'system.notice', message: `for ${who}` }, { token: t.am })).status).toBe(201);
    }
    const adminBefore = await inbox('admin');
    expect(adminBefore.some((n) => n.readAt === null)).toBe(true);
    const unread = (await inbox('client')).filter((n) => n.readAt === null).length;
    expect(unread).toBeGreaterThanOrEqual(2);

    const res = await app.patch('/api/notifications/read-all', undefined, { token: t.client });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: unread });
    expect((await inbox('client')).every((n) => n.readAt !== null)).toBe(true);
    // The org admin's notifications are untouched.
    expect(await inbox('admin')).toEqual(adminBefore);
    // Again: nothing left to mark, the first readAt kept.
    const readAt = (await inbox('client')).map((n) => n.readAt);
    expect((await app.patch('/api/notifications/read-all', undefined, { token: t.client })).body).toEqual({ updated: 0 });
    expect((await inbox('client')).map((n) => n.readAt)).toEqual(readAt);
    expect((await app.patch('/api/notifications/read-all', undefined)).status).toBe(401);
  });

  it('tells the client when their Specialist answers through an Expert, never naming the Expert', async () => {
    const conversation = (await app.post('/api/conversations', { subject: 'Shipping labels', message: 'Can you print the labels?' }, { token: t.client })).body;
    expect(conversation.id).toBeDefined();
    // The Specialist's own answer to the first message may notify the client at any moment (a
    // queue worker may deliver it): each notice is picked out by the message it is about.
    const about = async (who: string, messageId: string) => (await inbox(who)).filter((n) => n.meta?.messageId === messageId);

    const internal = await app.post(`/api/conversations/${conversation.id}/messages`, { content: 'Internal: check the printer', isInternal: true }, { token: t.expert });
    expect(internal.status).toBe(201);

    const reply = await app.post(`/api/conversations/${conversation.id}/messages`, { content: 'The labels are printed and on your desk.' }, { token: t.expert });
    expect(reply.status).toBe(201);
    // Delivered at once after the commit, unless a queue worker took its job first: then soon.
    await expect.poll(async () => (await about('client', reply.body.id)).length, { timeout: 30_000 }).toBe(1);
    const [note] = await about('client', reply.body.id);
    expect(note).toMatchObject({ userId: ids.client, type: 'conversation.specialist_replied', readAt: null, message: 'The labels are printed and on your desk.' });
    expect(note!.title).toMatch(/^.+ replied in “Shipping labels”$/);
    expect(note!.meta).toMatchObject({ conversationId: conversation.id, orgId: conversation.orgId, messageId: reply.body.id });
    // An internal note tells the client nothing (it was written before the reply, whose notice is here).
    expect(await about('client', internal.body.id)).toEqual([]);
    // Nothing of the Expert: not their id, name or email, nor the word.
    const expertMe = (await app.get('/api/auth/me', { token: t.expert })).body;
    const text = JSON.stringify(note);
    for (const secret of [ids.expert!, expertMe.email, expertMe.name].filter(Boolean)) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/expert/i);
    // The org admin took no part in this conversation: not notified; the Expert neither.
    expect((await inbox('admin')).filter((n) => n.meta?.conversationId === conversation.id)).toEqual([]);
    expect((await inbox('expert')).some((n) => n.type === 'conversation.specialist_replied')).toBe(false);
  });

  it('owes these notices through the outbox: written with the reply or the escalation, each job completed, each notice stored once', async () => {
    const db = app.running.app.get(DbService);
    const jobs = async (event: string, key: string, value: string) =>
      rowsOf(await db.root.execute(sql`select state from pgboss.job where name = 'events.durable' and data->>'event' = ${event} and data->'payload'->>${key} = ${value}`)) as Array<{ state: string }>;
    const conversation = (await app.post('/api/conversations', { subject: 'Outbox', message: 'Is this durable?' }, { token: t.client })).body;

    const reply = await app.post(`/api/conversations/${conversation.id}/messages`, { content: 'It is.' }, { token: t.expert });
    expect(reply.status).toBe(201);
    // Delivered at once after the commit, unless a queue worker took the job first: then soon.
    await expect.poll(() => jobs('conversations.specialist_replied', 'messageId', reply.body.id), { timeout: 30_000 }).toEqual([{ state: 'completed' }]);
    expect(await jobs('notifications.owed', 'userId', ids.client!).then((rows) => rows.length)).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await inbox('client')).filter((n) => n.meta?.messageId === reply.body.id).length, { timeout: 30_000 }).toBe(1);

    expect((await app.post(`/api/conversations/${conversation.id}/escalate`, { reason: 'Call me' }, { token: t.client })).status).toBe(201);
    await expect.poll(() => jobs('conversations.queue_item_raised', 'conversationId', conversation.id), { timeout: 30_000 }).toEqual([{ state: 'completed' }]);
    await expect.poll(async () => (await inbox('expert')).filter((n) => n.type === 'expert_queue.escalation' && n.meta?.conversationId === conversation.id).length, { timeout: 30_000 }).toBe(1);
  });

  it('notifies every client member who wrote in the conversation', async () => {
    const conversation = (await app.post('/api/conversations', { subject: 'Team thread', message: 'First question' }, { token: t.client })).body;
    expect((await app.post(`/api/conversations/${conversation.id}/messages`, { content: 'Adding a detail' }, { token: t.admin })).status).toBe(201);
    const reply = await app.post(`/api/conversations/${conversation.id}/messages`, { content: 'Answered both of you.' }, { token: t.expert });
    expect(reply.status).toBe(201);
    // Delivered before the answer, unless a queue worker took the event's job first: then soon.
    const about = async (who: 'client' | 'admin') => (await inbox(who)).filter((n) => n.meta?.messageId === reply.body.id);
    await expect.poll(async () => (await about('client')).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await about('admin')).length, { timeout: 30_000 }).toBe(1);
    expect((await about('admin'))[0]).toMatchObject({ type: 'conversation.specialist_replied', meta: expect.objectContaining({ conversationId: conversation.id }) });
  });
});

describe('the subdomain check of Phase 2 (spec 2.1), scoped by the invite', () => {
  let app: TestApp;
  let am: string;
  let seq = 0;
  beforeAll(async () => {
    app = await startTestApp();
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  async function invitedOrg() {
    const slug = `sub-${++seq}-${Date.now().toString(36)}`;
    const org = await app.post(
      '/api/am/orgs',
      { legalName: `Org ${slug}`, slug, industry: 'finance', corporateDomains: [`${slug}.example.com`], adminEmail: `owner@${slug}.example.com`, website: 'https://o.example.com', timezone: 'UTC' },
      { token: am },
    );
    expect(org.status).toBe(201);
    const invite = await app.post(`/api/am/orgs/${org.body.id}/invite`, {}, { token: am });
    expect(invite.status).toBe(200);
    return { slug, token: new URL(invite.body.onboardingUrl).searchParams.get('token')! };
  }
  const check = (token: string, slug: string) => app.get(`/api/onboarding/${token}/subdomain-availability?slug=${encodeURIComponent(slug)}`);

  it("answers as the wizard does; the invite's own subdomain is available to it, another org's is taken", async () => {
    const mine = await invitedOrg();
    const other = await invitedOrg();
    expect((await check(mine.token, mine.slug)).body).toEqual({ slug: mine.slug, valid: true, available: true, reason: null });
    expect((await check(mine.token, other.slug)).body).toEqual({ slug: other.slug, valid: true, available: false, reason: 'taken' });
    expect((await check(mine.token, 'acme')).body).toEqual({ slug: 'acme', valid: true, available: false, reason: 'taken' });
    expect((await check(mine.token, `free-${Date.now().toString(36)}`)).body).toMatchObject({ valid: true, available: true, reason: null });
    expect((await check(mine.token, 'Bad_Name')).body).toEqual({ slug: 'Bad_Name', valid: false, available: false, reason: 'invalid_format' });
    expect((await check(mine.token, 'www')).body).toMatchObject({ valid: false, reason: 'reserved_word' });
    // The same as the AM wizard's check.
    const wizard = await app.get(`/api/am/slug-availability?slug=${other.slug}`, { token: am });
    expect((await check(mine.token, other.slug)).body).toEqual(wizard.body);
  });

  it('needs a live invite: unknown or malformed token refused, and never says more than available or taken', async () => {
    const unknown = await check('x'.repeat(40), 'acme');
    expect(unknown.status).toBe(404);
    // A malformed token is refused as the invite's other routes refuse it.
    expect((await check('short', 'acme')).status).toBe((await app.get('/api/onboarding/short')).status);
    const mine = await invitedOrg();
    const res = await check(mine.token, 'acme');
    expect(Object.keys(res.body).sort()).toEqual(['available', 'reason', 'slug', 'valid']);
  });
});
