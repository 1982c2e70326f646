import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, eventually, faultsUnsupported, modelEnv, repliesPerMessage, sendMessage, startDeployment, type Deployment } from '../support/deployment.js';
import { FakeProvider } from '../support/llm-provider.js';
import { sleep } from '../support/processes.js';

const TIMEOUT_MS = 400;

describe.skipIf(faultsUnsupported)('the LLM provider timing out (openai-compatible, LLM_TIMEOUT_MS)', () => {
  const provider = new FakeProvider();
  let d: Deployment;
  let client: string;
  let expert: string;

  beforeAll(async () => {
    const baseUrl = await provider.start();
    d = await startDeployment({
      ...modelEnv(baseUrl),
      LLM_TIMEOUT_MS: String(TIMEOUT_MS),
      TURN_LEASE_MS: '4000',
      STRANDED_AFTER_MS: '2000',
    });
    const a = await d.start('a');
    await d.start('b');
    client = await a.http.login('client@acme.demo.invalid', DEMO_PASSWORD);
    expert = await a.http.login('expert@platform.demo.invalid', DEMO_PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await d?.close();
    await provider.stop();
  });

  it('puts each thread on the attention list once, and never sends a late or second reply', async () => {
    const [a, b] = [d.instance('a'), d.instance('b')];
    const conversations = await Promise.all([1, 2, 3].map(async () => (await a.http.post('/api/conversations', {}, { token: client })).body.id as string));
    const failing: string[] = [];
    const send = async (i: number, conversation: string, key?: string) => {
      const began = Date.now();
      const sent = await sendMessage([a, b][i % 2]!.url, client, conversation, `question ${i}`, key);
      return { ...sent, ms: Date.now() - began };
    };

    // A provider that never answers, then one that answers only after the timeout.
    provider.mode = 'hang';
    const hung = await Promise.all([send(0, conversations[0]!, 'hang-0'), send(1, conversations[1]!, 'hang-1'), send(2, conversations[1]!, 'hang-2')]);
    provider.mode = 'ok';
    provider.delayMs = TIMEOUT_MS * 2;
    const late = await Promise.all([send(3, conversations[2]!, 'late-3')]);
    for (const r of [...hung, ...late]) {
      // Three attempts of LLM_TIMEOUT_MS and two pauses, then the answer: no reply.
      expect(r.status).toBe(201);
      expect(r.body.reply).toBeNull();
      expect(r.ms).toBeLessThan(10_000);
      failing.push(r.body.id);
    }
    const items = (await a.http.get('/api/expert-queue', { token: expert })).body.items as Array<{ conversationId: string; reason: string }>;
    for (const conversation of conversations) expect(items.filter((i) => i.conversationId === conversation)).toEqual([expect.objectContaining({ reason: 'agent_failure' })]);
    const notes = (await b.http.get('/api/notifications', { token: expert })).body as Array<{ type: string }>;
    expect(notes.filter((n) => n.type === 'expert_queue.agent_failure').length).toBeGreaterThanOrEqual(conversations.length);

    // A client retrying with the same key gets the same message and starts nothing.
    const calls = provider.requests.length;
    const retried = await send(1, conversations[0]!, 'hang-0');
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(failing[0]);
    expect(provider.requests.length).toBe(calls);

    // The provider answers again: a new message gets its reply, the failed ones stay unanswered
    // (the sweepers leave failed turns alone; late answers were dropped).
    provider.delayMs = 0;
    const fresh = await send(4, conversations[2]!, 'fresh-4');
    expect(fresh.status).toBe(201);
    expect(fresh.body.reply).toMatchObject({ content: 'Hello from a live model.' });
    await sleep(5000);
    const replies = new Map((await repliesPerMessage(d.db, conversations)).map((m) => [m.id, m.replies]));
    expect(failing.map((id) => replies.get(id))).toEqual([0, 0, 0, 0]);
    expect(replies.get(fresh.body.id)).toBe(1);
    const turns = await d.db.query<{ status: string; attempts: number }>(`select status, attempts from conversation_turns where message_id = any($1::uuid[])`, [failing]);
    expect(turns.rows).toEqual(failing.map(() => ({ status: 'failed', attempts: 1 })));
    const runs = await d.db.query<{ outcome: string; error: string }>(`select outcome, error from llm_runs where message_id = any($1::uuid[])`, [failing]);
    expect(runs.rows).toHaveLength(failing.length * 3);
    expect(runs.rows.every((r) => r.outcome === 'error')).toBe(true);
    // Each instance logged the failed attempts and the turns that failed for good.
    await eventually('the agent turn log lines', async () => [a, b].every((i) => i.logs().some((l) => l.msg === 'agent turn attempt failed')), 5000);
  }, 120_000);
});
