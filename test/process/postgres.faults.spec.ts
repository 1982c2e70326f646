import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, eventually, faultsUnsupported, modelEnv, openWork, repliesPerMessage, sendMessage, startDeployment, type Deployment } from '../support/deployment.js';
import { FakeProvider } from '../support/llm-provider.js';
import { readyStatus, sleep } from '../support/processes.js';

describe.skipIf(faultsUnsupported)('PostgreSQL stopped and started during a load', () => {
  const provider = new FakeProvider();
  let d: Deployment;
  let client: string;
  let clientId: string;
  let conversations: string[];

  beforeAll(async () => {
    // A model that takes a while: some turns are running when the database goes away.
    provider.delayMs = 600;
    const baseUrl = await provider.start();
    d = await startDeployment({ ...modelEnv(baseUrl), TURN_LEASE_MS: '4000', STRANDED_AFTER_MS: '3000' });
    const a = await d.start('a');
    await d.start('b');
    client = await a.http.login('client@acme.demo.invalid', DEMO_PASSWORD);
    clientId = (await a.http.get('/api/auth/me', { token: client })).body.id;
    conversations = await Promise.all([1, 2].map(async () => (await a.http.post('/api/conversations', {}, { token: client })).body.id as string));
  }, 180_000);

  afterAll(async () => {
    await d?.close();
    await provider.stop();
  });

  it('answers /ready 503 while it is down, recovers by itself, and completes the accepted work', async () => {
    const instances = [d.instance('a'), d.instance('b')];
    const sent: Array<{ key: string; status: number; ms: number; phase: string }> = [];
    let phase = 'up';
    let loading = true;
    const load = async (worker: number) => {
      for (let i = worker; loading; i += 3) {
        const key = randomUUID();
        const began = Date.now();
        const at = phase;
        const { status } = await sendMessage(instances[i % 2]!.url, client, conversations[i % 2]!, `message ${i}`, key);
        sent.push({ key, status, ms: Date.now() - began, phase: at });
        await sleep(100);
      }
    };
    const loads = [0, 1, 2].map(load);

    await sleep(1500);
    phase = 'down';
    await d.pg.stop('fast');
    for (const instance of instances) {
      await eventually(`${instance.name} /ready to answer 503`, async () => (await readyStatus(instance.url)) === 503, 15_000);
      const ready = await instance.http.get('/ready');
      expect(ready.body).toMatchObject({ status: 'not_ready', checks: { database: false } });
      expect((await instance.http.get('/health')).status).toBe(200);
    }
    await sleep(3000);

    phase = 'restarting';
    await d.pg.start();
    const restartedAt = Date.now();
    for (const instance of instances) await eventually(`${instance.name} /ready to answer 200 again`, async () => (await readyStatus(instance.url)) === 200, 30_000, 100);
    const recoveredInMs = Date.now() - restartedAt;
    phase = 'recovered';
    await sleep(2500);
    loading = false;
    await Promise.all(loads);

    // While the database was down, requests failed fast instead of hanging.
    const down = sent.filter((s) => s.phase === 'down');
    expect(down.length).toBeGreaterThan(0);
    expect(down.filter((s) => s.status !== 201 && s.status < 500)).toEqual([]);
    expect(Math.max(...down.map((s) => s.ms))).toBeLessThan(10_000);
    // Once it was back, every request was accepted again.
    const after = sent.filter((s) => s.phase === 'recovered');
    expect(after.length).toBeGreaterThan(3);
    expect(after.filter((s) => s.status !== 201)).toEqual([]);

    // Neither instance died on the way (a lost connection is an error to handle, never a crash).
    expect(instances.map((i) => i.child.exitCode ?? i.child.signalCode)).toEqual([null, null]);
    // Nothing accepted is lost; everything stored (even when its request failed) is answered once.
    await eventually('the open turns to finish', async () => (await openWork(d.db)).turns === 0, 60_000, 500);
    const messages = await repliesPerMessage(d.db, conversations);
    const stored = new Set(messages.map((m) => m.key));
    expect(sent.filter((s) => s.status === 201 && !stored.has(`${clientId}:${s.key}`))).toEqual([]);
    expect(messages.filter((m) => m.replies !== 1)).toEqual([]);
    console.info(
      `postgres: ${sent.length} messages sent (${down.length} while down, ${sent.filter((s) => s.status === 201).length} accepted, ${messages.length} stored, all answered once); /ready back ${recoveredInMs} ms after the restart`,
    );
  }, 180_000);
});
