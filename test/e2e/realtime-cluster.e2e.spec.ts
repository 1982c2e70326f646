import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, connectSocket, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';
const clustered = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

describe.runIf(clustered)('two instances on PostgreSQL and Redis (spec 6.1.4)', () => {
  let one: TestApp;
  let two: TestApp;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    one = await startTestApp();
    two = await startTestApp({ shareWith: one });
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await two?.running.close();
    await one?.close();
  });

  it('delivers an event caused on instance 1 to a socket on instance 2, once', async () => {
    const clientToken = await two.login('client@acme.demo.invalid', PASSWORD);
    const clientId = (await two.get('/api/auth/me', { token: clientToken })).body.id;
    const onTwo = await connectSocket(two.url, clientToken);
    sockets.push(onTwo);
    const got = collect(onTwo, 'notification:new');
    const am = await one.login('account_manager@platform.demo.invalid', PASSWORD);
    const created = await one.post('/api/notifications', { userId: clientId, type: 'system.cluster', message: 'across instances' }, { token: am });
    expect(created.status).toBe(201);
    await waitFor(() => got.length === 1);
    expect(got[0]).toEqual(created.body);
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toHaveLength(1);
  });
});
