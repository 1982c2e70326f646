import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAILBOX_PROVIDER, type MailboxProvider } from '../../src/modules/specialists/mailbox.provider.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

describe('mailbox lifecycle (spec 3.3)', () => {
  let app: TestApp;
  let am: string;
  let seq = 0;
  const setup = async () => {
    const slug = `mbx-${++seq}-${Date.now().toString(36)}`;
    const org = (
      await app.post(
        '/api/am/orgs',
        { legalName: slug, slug, industry: 'media', corporateDomains: [`${slug}.example.com`], adminEmail: `a@${slug}.example.com`, website: 'https://m.example.com', timezone: 'UTC' },
        { token: am },
      )
    ).body;
    const pool = (await app.get('/api/am/specialists?limit=200', { token: am })).body.items as Array<{ id: string; slug: string }>;
    const osa = (await app.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: pool.find((s) => s.slug === 'maya-chen')!.id }, { token: am })).body;
    const base = `/api/am/orgs/${org.id}/specialist-assignments/${osa.id}`;
    return { org, osa, base };
  };
  const waitProvisioned = async (base: string) => {
    let body: any;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      body = (await app.get(base, { token: am })).body;
      if (body.mailboxUserId) return body;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`not provisioned: ${JSON.stringify(body)}`);
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { MAILBOX_RETRY_DELAY_S: '1' } });
    am = await app.login('account_manager@platform.demo.invalid', PASSWORD);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('provisions asynchronously through the job, then suspends and restores', async () => {
    const { base } = await setup();
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(409);
    const queued = await app.post(`${base}/provision`, undefined, { token: am });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ mailboxUserId: null, mailboxStatus: 'provisioning' });
    const done = await waitProvisioned(base);
    expect(done).toMatchObject({ mailboxStatus: 'provisioned', mailboxProvisionedAt: expect.any(String), mailboxSuspendedAt: null });
    expect((await app.post(`${base}/provision`, undefined, { token: am })).status).toBe(409);
    expect((await app.post(`${base}/restore`, undefined, { token: am })).status).toBe(409);
    const suspended = await app.post(`${base}/suspend`, undefined, { token: am });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ mailboxStatus: 'suspended', mailboxSuspendedAt: expect.any(String) });
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(409);
    const restored = await app.post(`${base}/restore`, undefined, { token: am });
    expect(restored.body).toMatchObject({ mailboxStatus: 'provisioned', mailboxSuspendedAt: null });
  });

  it('archives the mailbox on unassign (terminal) and refuses actions on it', async () => {
    const { org, osa, base } = await setup();
    await app.post(`${base}/provision`, undefined, { token: am });
    await waitProvisioned(base);
    expect((await app.request('DELETE', `/api/am/orgs/${org.id}/specialist/${osa.specialistId}`, { token: am })).status).toBe(204);
    expect((await app.post(`${base}/suspend`, undefined, { token: am })).status).toBe(404);
  });

  it('honours the per-org disable', async () => {
    const { org, base } = await setup();
    expect((await app.patch(`/api/am/orgs/${org.id}`, { mailboxProvisioningDisabled: true }, { token: am })).body.mailboxProvisioningDisabled).toBe(true);
    const refused = await app.post(`${base}/provision`, undefined, { token: am });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/disabled/);
  });

  it('notifies the assigned AM with workspace_provisioning_failed when the job fails after its retries', async () => {
    const provider = app.running.app.get<MailboxProvider>(MAILBOX_PROVIDER);
    const original = provider.createMailbox.bind(provider);
    let attempts = 0;
    provider.createMailbox = async () => {
      attempts++;
      throw new Error('hosted workspace unavailable');
    };
    try {
      const { base } = await setup();
      expect((await app.post(`${base}/provision`, undefined, { token: am })).status).toBe(202);
      const deadline = Date.now() + 40_000;
      let failed: any[] = [];
      while (Date.now() < deadline && failed.length === 0) {
        await new Promise((r) => setTimeout(r, 500));
        failed = ((await app.get('/api/notifications', { token: am })).body as any[]).filter((n) => n.type === 'workspace_provisioning_failed');
      }
      expect(failed).toHaveLength(1);
      expect(failed[0].meta).toMatchObject({ assignmentId: base.split('/').at(-1) });
      expect(attempts).toBe(4);
      expect((await app.get(base, { token: am })).body).toMatchObject({ mailboxUserId: null, mailboxStatus: 'none' });
    } finally {
      provider.createMailbox = original;
    }
  }, 60_000);

  it('provisions on assignment when the environment gate is on', async () => {
    const gated = await startTestApp({ env: { MAILBOX_AUTO_PROVISION: 'true' } });
    try {
      const token = await gated.login('account_manager@platform.demo.invalid', PASSWORD);
      const org = (
        await gated.post(
          '/api/am/orgs',
          { legalName: 'Auto', slug: 'auto-mbx', industry: 'media', corporateDomains: ['auto.example.com'], adminEmail: 'a@auto.example.com', website: 'https://a.example.com', timezone: 'UTC' },
          { token },
        )
      ).body;
      const pool = (await gated.get('/api/am/specialists?limit=200', { token })).body.items as Array<{ id: string; slug: string }>;
      const osa = (await gated.post(`/api/am/orgs/${org.id}/specialist`, { specialistId: pool[0]!.id }, { token })).body;
      expect(osa.mailboxStatus).toBe('provisioning');
      const deadline = Date.now() + 20_000;
      let body: any;
      while (Date.now() < deadline) {
        body = (await gated.get(`/api/am/orgs/${org.id}/specialist-assignments/${osa.id}`, { token })).body;
        if (body.mailboxUserId) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(body.mailboxStatus).toBe('provisioned');
    } finally {
      await gated.close();
    }
  }, 60_000);
});
