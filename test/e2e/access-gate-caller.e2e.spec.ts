import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ORG_STATUSES } from '../../src/contracts/orgs.js';
import { DunningService } from '../../src/modules/billing/dunning.service.js';
import { factoriesOf } from '../support/factories.js';
import { rows } from '../support/rows.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The access gate of spec 3.6 read with the request's caller: the statement that reads the
 * token's user and session also says which of the user's orgs are closed, by the billing
 * module's own rule, so a client request makes no read of the gate of its own.
 */
describe('the access gate read with the caller (spec 3.6)', () => {
  let app: TestApp;
  let client: string;
  let acmeId: string;
  beforeAll(async () => {
    app = await startTestApp();
    client = (await app.login('client@acme.demo.invalid', 'demo1234'))!;
    acmeId = (await app.get('/api/auth/me', { token: client })).body.orgMemberships[0].orgId as string;
  });
  afterAll(async () => {
    await app?.close();
  });

  const setStatus = (orgId: string, status: string) => rows(app.running.dbService, sql`update orgs set status = ${status} where id = ${orgId}`);

  it('refuses a client from the request after a suspension, lets them in again from the request after it ends, and never reads the gate apart', async () => {
    const dunning = app.running.app.get(DunningService);
    const apart = vi.spyOn(dunning, 'closedAmong');
    try {
      expect((await app.get('/api/client/specialists', { token: client })).status).toBe(200);
      await setStatus(acmeId, 'suspended');
      const refused = await app.get('/api/client/specialists', { token: client });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'org_suspended' });
      // Routes open while suspended stay open (billing settings).
      expect((await app.get('/api/auth/me', { token: client })).status).toBe(200);
      await setStatus(acmeId, 'deactivated');
      expect((await app.get('/api/conversations', { token: client })).status).toBe(403);
      await setStatus(acmeId, 'active');
      expect((await app.get('/api/client/specialists', { token: client })).status).toBe(200);
      expect(apart).not.toHaveBeenCalled();
    } finally {
      apart.mockRestore();
      await setStatus(acmeId, 'active');
    }
  });

  it("closes exactly the orgs the billing module's own check closes, for every org status", async () => {
    const dunning = app.running.app.get(DunningService);
    const f = factoriesOf(app);
    const byStatus = new Map<string, string>();
    for (const status of ORG_STATUSES) {
      const org = await f.newOrg();
      await setStatus(org.id, status);
      byStatus.set(status, org.id);
    }
    const ids = [...byStatus.values()];
    const inSql = sql`array[${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}]::uuid[]`;
    const [row] = await rows<{ closed: string[] }>(app.running.dbService, sql`select ${dunning.closedAmongSql(inSql)} as closed`);
    const closedBySql = new Set(row!.closed);
    expect(closedBySql).toEqual(await dunning.closedAmong(ids));
    expect([...closedBySql].sort()).toEqual([byStatus.get('suspended'), byStatus.get('deactivated')].sort());
  });
});
