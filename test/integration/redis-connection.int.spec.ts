import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { logger } from '../../src/platform/observability/logger.js';
import type { NotificationDto } from '../../src/contracts/notifications.js';
import { RealtimeService } from '../../src/platform/realtime/realtime.service.js';
import { createRedis, waitForRedis } from '../../src/platform/redis/redis.js';
import { eventually, sleep } from '../support/inbound.js';
import { startTestApp } from '../support/test-app.js';

describe('the Redis connection', () => {
  const clients: Redis[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const c of clients.splice(0)) c.disconnect();
  });

  it('fails a command at once while Redis is unreachable: nothing waits for it', async () => {
    const dead = createRedis('redis://127.0.0.1:1', 'dead');
    clients.push(dead);
    const began = Date.now();
    await expect(Promise.all([dead.incr('a'), dead.incr('b')])).rejects.toThrow();
    expect(Date.now() - began).toBeLessThan(1000);
  });

  it.runIf(process.env.REDIS_URL)('logs a lost connection and its return even when the first reconnect succeeds', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const info = vi.spyOn(logger, 'info');
    const client = createRedis(process.env.REDIS_URL!, 'watched');
    const admin = new Redis(process.env.REDIS_URL!);
    clients.push(client, admin);
    expect(await waitForRedis(client)).toBe(true);
    const id = (await client.client('ID')) as number;
    const lines = () => [...warn.mock.calls, ...info.mock.calls].map((c) => c[1]).filter((m) => String(m).startsWith('redis connection'));

    // The server drops the connection and is there again at the first retry: no `error` event.
    expect(await admin.client('KILL', 'ID', String(id))).toBe(1);
    await eventually('the restored line', async () => (lines().includes('redis connection restored') ? true : undefined), 5000);
    expect(lines()).toEqual(['redis connection error (retrying)', 'redis connection restored']);
    expect(await client.ping()).toBe('PONG');

    // A deliberate close is not a lost connection.
    await client.quit();
    await sleep(300);
    expect(lines()).toHaveLength(2);
  });

  it.runIf(process.env.REDIS_URL)('sends the pushes issued just before an app stops, and fails none of them', async () => {
    const app = await startTestApp({ periodic: false });
    const listener = new Redis(process.env.REDIS_URL!);
    clients.push(listener);
    const published: string[] = [];
    listener.on('pmessage', (_pattern: string, channel: string) => channel.includes('#user:user-') && published.push(channel));
    await listener.psubscribe(`${app.env.REDIS_KEY_PREFIX}socket.io*`);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The adapter publishes without waiting for an answer; pipelined, a publish waits for the end
      // of its turn of the event loop. These come in the turn of the app's last step (closing the
      // adapter's connections), as pushes of a job finishing during the stop would.
      const realtime = app.running.app.get(RealtimeService);
      const lastStep = realtime.disconnectRedis.bind(realtime);
      const spy = vi.spyOn(realtime, 'disconnectRedis').mockImplementationOnce(() => {
        for (let i = 0; i < 20; i++) expect(realtime.toUser(`user-${i}`, 'notification:new', { id: `n-${i}` } as unknown as NotificationDto)).toBe(true);
        return lastStep();
      });
      await app.close();
      expect(spy).toHaveBeenCalledOnce();
      expect(realtime.toUser('user-late', 'notification:new', { id: 'n-late' } as unknown as NotificationDto)).toBe(false);
      await eventually('the 20 publishes', async () => (published.length === 20 ? true : undefined), 5000);
      await sleep(200);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
