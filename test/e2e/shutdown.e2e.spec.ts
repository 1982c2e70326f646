import { describe, expect, it } from 'vitest';
import { connectSocket } from '../support/sockets.js';
import { startTestApp } from '../support/test-app.js';

describe('graceful stop with sockets connected', () => {
  it('closes the sockets first, so the HTTP server is not held open by them, and stops promptly', async () => {
    const app = await startTestApp();
    const token = await app.login('expert@platform.demo.invalid', 'demo1234');
    const sockets = await Promise.all([connectSocket(app.url, token), connectSocket(app.url, token)]);
    const disconnected = sockets.map((s) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason))));
    const started = Date.now();
    await app.close();
    // Before the fix the HTTP server waited for the sockets until the 30 s shutdown limit.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await Promise.all(disconnected)).toEqual(['transport close', 'transport close']);
    for (const s of sockets) s.close();
  });
});
