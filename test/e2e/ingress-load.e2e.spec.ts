import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IngressLoad } from '../../src/modules/channels/ingress-load.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chatACall } from '../support/webhooks.js';

const CHAT_A_SECRET = 'chat-a-signing-secret';

const event = (eventId: string, secret = CHAT_A_SECRET) =>
  chatACall(secret, { type: 'event_callback', team_id: 'T-LOAD', event_id: eventId, event: { type: 'message', channel: 'C1', user: 'U1', text: `event ${eventId}`, ts: '1700000000.000100' } });

/**
 * The inbound worker gives way to the webhook calls its instance admits (docs/channels.md, step
 * 6): only calls whose signature checked out count, so a forged call cannot hold processing back.
 */
describe('IngressLoad: what the inbound worker gives way to', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { CHAT_A_SIGNING_SECRET: CHAT_A_SECRET } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts a verified call (a new event or a redelivery) once each, and a forged one not at all', async () => {
    const begin = vi.spyOn(app.running.app.get(IngressLoad), 'begin');
    const send = (call: ReturnType<typeof chatACall>) => app.request('POST', call.path, { body: call.body, headers: call.headers });

    const forged = await send(event('Ev-forged', 'not-the-secret'));
    expect(forged.status).toBe(401);
    expect(begin).not.toHaveBeenCalled();

    expect((await send(event('Ev-load'))).status).toBe(200);
    expect(begin).toHaveBeenCalledTimes(1);
    expect((await send(event('Ev-load'))).body).toEqual({ ok: true, duplicate: true });
    expect(begin).toHaveBeenCalledTimes(2);
    // Each admission ended: the worker is held only while calls are in flight, and a moment after.
    await vi.waitFor(() => expect(app.running.app.get(IngressLoad).busy).toBe(false), { timeout: 2_000 });
  });
});
