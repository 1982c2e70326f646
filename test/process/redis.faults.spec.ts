import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, eventually, faultsUnsupported, sendMessage, startDeployment, type Deployment } from '../support/deployment.js';
import { collect, connectSocket, type TestSocket } from '../support/sockets.js';

const QUOTA = 40;

describe.skipIf(faultsUnsupported)('Redis stopped and started', () => {
  let d: Deployment;
  let client: string;
  let expert: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    d = await startDeployment({ ORG_MESSAGE_QUOTA_PER_HOUR: String(QUOTA) });
    const a = await d.start('a');
    await d.start('b');
    client = await a.http.login('client@acme.demo.invalid', DEMO_PASSWORD);
    expert = await a.http.login('expert@platform.demo.invalid', DEMO_PASSWORD);
  }, 180_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await d?.close();
  });

  it('keeps HTTP serving while it is down; real-time delivery across instances and the shared limits come back with it', async () => {
    const [a, b] = [d.instance('a'), d.instance('b')];
    const onB = await connectSocket(b.url, expert);
    sockets.push(onB);
    const received = collect(onB, 'user_message_received');
    const conversation = (await a.http.post('/api/conversations', {}, { token: client })).body.id as string;
    const arrived = (n: number) => eventually(`${n} user_message_received on instance b`, async () => received.length >= n, 10_000, 50);
    expect((await sendMessage(a.url, client, conversation, 'before')).status).toBe(201);
    await arrived(1);

    await d.redis.stop();
    // HTTP keeps serving, without waiting on Redis: reads, writes, turns, sign-in, readiness.
    const during = [];
    for (let i = 0; i < 6; i++) {
      const began = Date.now();
      const sent = await sendMessage([a, b][i % 2]!.url, client, conversation, `while Redis is down ${i}`);
      during.push({ status: sent.status, reply: Boolean(sent.body?.reply), ms: Date.now() - began });
    }
    expect(during.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(during.every((r) => r.reply)).toBe(true);
    expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(3000);
    expect((await b.http.get(`/api/conversations/${conversation}`, { token: client })).status).toBe(200);
    expect((await b.http.post('/api/auth/login', { email: 'org_admin@acme.demo.invalid', password: DEMO_PASSWORD })).status).toBe(200);
    for (const instance of [a, b]) expect((await instance.http.get('/ready')).status).toBe(200);

    await d.redis.start();
    // Each instance reconnects by itself (its limits' connection logs that it is restored).
    for (const instance of [a, b]) {
      await eventually(`${instance.name} to reconnect to Redis`, async () => instance.logs().some((l) => l.msg === 'redis connection restored' && l.name === 'rate-limit'), 15_000, 100).catch(
        (err: Error) => {
          // What the instance said about Redis, so that a failure here tells what happened.
          const said = instance.logs().filter((l) => /redis/i.test(String(l.msg)));
          throw new Error(`${err.message}; its Redis log lines: ${JSON.stringify(said)}`);
        },
      );
    }

    // Real time: an event caused on a reaches the socket on b again.
    await eventually(
      'cross-instance delivery to come back',
      async () => {
        const before = received.length;
        await sendMessage(a.url, client, conversation, 'back-after-the-restart');
        await new Promise((r) => setTimeout(r, 500));
        return received.some((e, i) => i >= before && JSON.stringify(e).includes('back-after-the-restart'));
      },
      15_000,
      100,
    );

    // Limits: counted in Redis again, so shared by both instances (Redis came back empty).
    const second = (await a.http.post('/api/conversations', {}, { token: client })).body.id as string;
    const quota = await a.http.get(`/api/orgs/${(await a.http.get('/api/auth/me', { token: client })).body.orgMemberships[0].orgId}/quota`, { token: client });
    const left = quota.body.remaining as number;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(QUOTA);
    const burst = await Promise.all(Array.from({ length: left + 10 }, (_, i) => sendMessage([a, b][i % 2]!.url, client, second, `burst ${i}`)));
    expect(burst.filter((r) => r.status === 201)).toHaveLength(left);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(10);
    expect([a, b].map((i) => i.child.exitCode ?? i.child.signalCode)).toEqual([null, null]);
  }, 120_000);
});
