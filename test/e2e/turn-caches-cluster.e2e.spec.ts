import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const clustered = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/**
 * Agent turns read the org's briefs, its tool permissions and the Specialist from caches of their
 * instance; a write on another instance must reach them (the offline model's reply says what the
 * turn was given: the Specialist's name, how many briefs, whether the time tool ran).
 */
describe.runIf(clustered)('agent turns on one instance see writes made on another', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    one = await startTestApp();
    two = await startTestApp({ shareWith: one });
  });
  afterAll(async () => {
    await two?.running.close();
    await one?.close();
  });

  it('uses the briefs, tool permissions and Specialist written on instance 1 in the next turn on instance 2', async () => {
    const ownerOne = await one.login('org_admin@acme.demo.invalid', PASSWORD);
    const ownerTwo = await two.login('org_admin@acme.demo.invalid', PASSWORD);
    const superadmin = await one.login('superadmin@platform.demo.invalid', PASSWORD);
    const conversation = (await two.post('/api/conversations', {}, { token: ownerTwo })).body as { id: string; specialist: { id: string; name: string } };
    const ask = async (content: string): Promise<string> => {
      const sent = await two.post(`/api/conversations/${conversation.id}/messages`, { content }, { token: ownerTwo });
      expect(sent.status).toBe(201);
      return sent.body.reply.content as string;
    };
    const briefsIn = (text: string) => Number(/I have (\d+) client brief/.exec(text)?.[1] ?? 0);

    // Twice: the second turn reads what the first one cached.
    const before = briefsIn(await ask('Hello'));
    expect(briefsIn(await ask('Hello again'))).toBe(before);
    expect((await one.post('/api/client-briefs', { title: 'Written on one', content: 'We sell anvils.' }, { token: ownerOne })).status).toBe(201);
    await expect.poll(async () => briefsIn(await ask('And now?')), { timeout: 5000 }).toBe(before + 1);

    const me = await two.get('/api/auth/me', { token: ownerTwo });
    const orgId = (me.body.orgMemberships as Array<{ orgId: string }>)[0]!.orgId;
    const timeTool = `/api/orgs/${orgId}/tool-permissions/get_org_local_time`;
    expect(await ask('What time is it over there?')).toContain('get_org_local_time');
    expect((await one.request('PUT', timeTool, { token: ownerOne, body: { enabled: false } })).status).toBe(200);
    try {
      await expect.poll(async () => (await ask('What time is it over there?')).includes('get_org_local_time'), { timeout: 5000 }).toBe(false);
    } finally {
      await one.request('PUT', timeTool, { token: ownerOne, body: { enabled: true } });
    }

    const specialist = conversation.specialist;
    expect(await ask('Who are you?')).toContain(`Hello, this is ${specialist.name}.`);
    expect((await one.patch(`/api/specialists/${specialist.id}`, { name: 'Renamed On One' }, { token: superadmin })).status).toBe(200);
    try {
      await expect.poll(async () => await ask('Who are you now?'), { timeout: 5000 }).toContain('Hello, this is Renamed On One.');
    } finally {
      await one.patch(`/api/specialists/${specialist.id}`, { name: specialist.name }, { token: superadmin });
    }
  });
});
