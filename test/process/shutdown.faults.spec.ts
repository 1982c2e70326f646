import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_PASSWORD,
  demoClientWithMessagingA,
  eventually,
  faultsUnsupported,
  messagingAEnv,
  messagingAText,
  modelEnv,
  sendMessage,
  startDeployment,
  type Deployment,
} from '../support/deployment.js';
import { FakeProvider } from '../support/llm-provider.js';
import { metricSum, sleep } from '../support/processes.js';
import { connectSocket, type TestSocket } from '../support/sockets.js';
import { startFakeVendor, type FakeVendor } from '../support/vendor.js';
import { postMessagingA } from '../support/webhooks.js';

const CLIENT_NUMBER = '+15557650301';
/** A slow model: the request and the job are still running when SIGTERM arrives. */
const MODEL_MS = 2500;

describe.skipIf(faultsUnsupported)('graceful shutdown on SIGTERM', () => {
  const provider = new FakeProvider();
  let vendor: FakeVendor;
  let d: Deployment;
  let client: string;
  let socket: TestSocket | undefined;

  beforeAll(async () => {
    provider.delayMs = MODEL_MS;
    const baseUrl = await provider.start();
    vendor = await startFakeVendor();
    d = await startDeployment({ ...modelEnv(baseUrl), ...messagingAEnv(vendor.url) });
    const a = await d.start('a');
    ({ client } = await demoClientWithMessagingA(a.http, [CLIENT_NUMBER]));
  }, 180_000);

  afterAll(async () => {
    socket?.close();
    await d?.close();
    await vendor?.close();
    await provider.stop();
  });

  it('finishes the requests and jobs in flight, closes the sockets, releases the leader lease and exits 0', async () => {
    const a = d.instance('a');
    const conversation = (await a.http.post('/api/conversations', {}, { token: client })).body.id as string;
    socket = await connectSocket(a.url, await a.http.login('expert@platform.demo.invalid', DEMO_PASSWORD));
    const socketClosed = new Promise<string>((resolve) => socket!.once('disconnect', (reason) => resolve(reason)));
    expect(metricSum((await a.http.get('/metrics')).body, 'scheduler_leader')).toBe(1);

    // A request in flight: a client message whose turn waits on the model.
    const inFlight = sendMessage(a.url, client, conversation, 'Answer me before you go');
    await sleep(300);
    // A job in flight, ending after the request: an inbound event whose turn waits on the model.
    const call = messagingAText('SM-STOP-1', CLIENT_NUMBER, 'Still there?');
    expect(await postMessagingA(a.url, call)).toBe(200);
    await eventually('the inbound job to start', async () => (await d.db.query(`select status from inbound_events where event_key = 'SM-STOP-1'`)).rows[0]?.status === 'processing', 10_000, 50);

    const stopping = Date.now();
    a.child.kill('SIGTERM');
    await sleep(300);
    // It takes nothing new, and tells its sockets to go elsewhere.
    expect(
      await fetch(`${a.url}/health`).then(
        () => 'answered',
        () => 'refused',
      ),
    ).toBe('refused');
    expect(await socketClosed).toBe('transport close');

    const answer = await inFlight;
    expect(answer.status).toBe(201);
    expect(answer.body.reply).toMatchObject({ content: 'Hello from a live model.' });
    expect(await a.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - stopping).toBeLessThan(15_000);
    expect(a.logs().some((l) => l.msg === 'shutting down')).toBe(true);

    // The job finished before the process ended: the event is done and its reply stored.
    const event = (await d.db.query<{ status: string; message_id: string }>(`select status, message_id from inbound_events where event_key = 'SM-STOP-1'`)).rows[0]!;
    expect(event.status).toBe('done');
    expect((await d.db.query(`select id from conversation_messages where reply_to_message_id = $1`, [event.message_id])).rows).toHaveLength(1);

    // The lease was released at once: a new instance leads from its start, not 30 s later, and sends the reply.
    const b = await d.start('b');
    expect(metricSum((await b.http.get('/metrics')).body, 'scheduler_leader')).toBe(1);
    await eventually('the channel reply to be sent', async () => vendor.sends('/Messages.json').length === 1, 20_000);
  }, 120_000);
});
