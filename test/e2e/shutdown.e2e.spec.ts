import { afterAll, describe, expect, it } from 'vitest';
import { RealtimeService } from '../../src/platform/realtime/realtime.service.js';
import { FakeProvider } from '../support/llm-provider.js';
import { collect, connectSocket, waitFor } from '../support/sockets.js';
import { startTestApp } from '../support/test-app.js';

const PASSWORD = 'demo1234';

describe('graceful stop', () => {
  const provider = new FakeProvider();
  afterAll(async () => {
    await provider.stop().catch(() => undefined);
  });

  it('closes the sockets first, so the HTTP server is not held open by them, and stops promptly', async () => {
    const app = await startTestApp();
    const token = await app.login('expert@platform.demo.invalid', PASSWORD);
    const sockets = await Promise.all([connectSocket(app.url, token), connectSocket(app.url, token)]);
    const disconnected = sockets.map((s) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason))));
    const started = Date.now();
    await app.close();
    // Before the fix the HTTP server waited for the sockets until the 30 s shutdown limit.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await Promise.all(disconnected)).toEqual(['transport close', 'transport close']);
    for (const s of sockets) s.close();
  });

  it('answers a request in flight, then closes its keep-alive connection instead of waiting for it to time out', async () => {
    provider.delayMs = 1500;
    const baseUrl = await provider.start();
    const app = await startTestApp({ env: { LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: baseUrl, LLM_MODEL: 'gpt-4o-mini' } });
    const client = await app.login('client@acme.demo.invalid', PASSWORD);
    const conversation = (await app.post('/api/conversations', {}, { token: client })).body.id as string;
    // fetch keeps the connection alive after the answer.
    const inFlight = app.post(`/api/conversations/${conversation}/messages`, { content: 'Quick, before you go' }, { token: client });
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await app.close();
    expect((await inFlight).status).toBe(201);
    // Before the fix the server waited for the idle connection's keep-alive timeout (72 s).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)('graceful stop of one of two instances', () => {
  it('still carries the events of work finishing during the stop to the other instance', async () => {
    const one = await startTestApp();
    const two = await startTestApp({ shareWith: one });
    try {
      const token = await two.login('client@acme.demo.invalid', PASSWORD);
      const userId = (await two.get('/api/auth/me', { token })).body.id as string;
      const socket = await connectSocket(two.url, token);
      const got = collect(socket, 'notification:new');
      const realtime = one.running.app.get(RealtimeService);
      // Instance one is stopping: its sockets are gone, a job of its own is still finishing.
      realtime.beforeApplicationShutdown();
      await realtime.onApplicationShutdown();
      const late = { id: 'late', userId, type: 'system.late', message: 'finished during the stop', meta: {}, readAt: null, createdAt: new Date().toISOString() };
      expect(realtime.toUser(userId, 'notification:new', late as never)).toBe(true);
      await waitFor(() => got.length === 1, 5000);
      expect(got[0]).toMatchObject({ id: 'late' });
      socket.close();
    } finally {
      await two.running.close();
      await one.close();
    }
  });
});
