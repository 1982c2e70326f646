import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SOCKETS_PER_USER } from '../../src/contracts/realtime.js';
import { SessionsService } from '../../src/modules/auth/index.js';
import { OrgsService } from '../../src/modules/orgs/index.js';
import { UsersService } from '../../src/modules/users/index.js';
import { collect, connectSocket, disconnected, messageTexts, refusalOf, sessionTokens, waitFor, type TestSocket } from '../support/sockets.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';
const FRESH_PASSWORD = 'a-fresh-password';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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

  describe('access changes made on instance 1 reach sockets on instance 2 within 5 s', () => {
    let n = 0;
    let acmeId: string;
    beforeAll(async () => {
      acmeId = (await one.running.app.get(OrgsService).findBySlug('acme'))!.id;
    });
    // Each instance signs with keys of its own (its own DATA_DIR): a socket on two needs a token of two.
    const person = async (platformRole: 'org_member' | 'expert', member = true, on = two) => {
      const users = one.running.app.get(UsersService);
      const email = `cluster-${++n}@example.com`;
      const user = await users.create({ email, platformRole, password: FRESH_PASSWORD });
      if (member) await users.addMembership(unscopedOrg(acmeId, 'test setup'), user.id, 'member');
      return { id: user.id, email, token: await on.login(email, FRESH_PASSWORD) };
    };
    const onTwo = async (token: string) => {
      const s = await connectSocket(two.url, token);
      sockets.push(s);
      return s;
    };
    /** A thread of acme written in on instance 1, followed by the victim's socket on instance 2. */
    const following = async (token: string) => {
      const writer = await person('org_member', true, one);
      const conversationId = (await one.post('/api/conversations', { message: 'opening' }, { token: writer.token })).body.id as string;
      const socket = await onTwo(token);
      expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: true });
      const texts = messageTexts(socket);
      const say = async (content: string) => expect((await one.post(`/api/conversations/${conversationId}/messages`, { content }, { token: writer.token })).status).toBe(201);
      await say('before');
      await waitFor(() => texts.includes('before'));
      return { socket, texts, say, conversationId };
    };
    const streamingEnds = async (say: (content: string) => Promise<void>, texts: string[], since: number) => {
      for (let probe = 0; ; probe++) {
        await say(`probe ${probe}`);
        await sleep(300);
        if (!texts.includes(`probe ${probe}`)) break;
        expect(Date.now() - since).toBeLessThan(5000);
      }
      expect(Date.now() - since).toBeLessThan(5000);
      await say('after');
      await sleep(500);
      expect(texts).not.toContain('after');
    };

    it('a suspension disconnects them', async () => {
      const superadmin = await one.login('superadmin@platform.demo.invalid', PASSWORD);
      const victim = await person('org_member');
      const { socket } = await following(victim.token);
      const since = Date.now();
      expect((await one.patch(`/api/admin/users/${victim.id}`, { status: 'suspended' }, { token: superadmin })).status).toBe(200);
      await disconnected(socket);
      expect(Date.now() - since).toBeLessThan(5000);
    });

    it("a removed membership takes them out of the org's threads", async () => {
      const superadmin = await one.login('superadmin@platform.demo.invalid', PASSWORD);
      const victim = await person('org_member');
      const { socket, texts, say, conversationId } = await following(victim.token);
      const since = Date.now();
      expect((await one.request('DELETE', `/api/orgs/${acmeId}/members/${victim.id}`, { token: superadmin })).status).toBe(204);
      await streamingEnds(say, texts, since);
      expect(await socket.emitWithAck('join_conversation', conversationId)).toEqual({ ok: false, error: 'forbidden' });
    });

    it("a removed Expert grant takes them out of the org's rooms: no thread, no queue event", async () => {
      const am = await one.login('account_manager@platform.demo.invalid', PASSWORD);
      const expert = await person('expert', false);
      const grant = (await one.post(`/api/am/orgs/${acmeId}/expert-grants`, { expertId: expert.id, scope: 'org' }, { token: am })).body;
      const { socket, texts, say } = await following(expert.token);
      const queue = collect(socket, 'expert_queue_item_added');
      const since = Date.now();
      expect((await one.request('DELETE', `/api/am/orgs/${acmeId}/expert-grants/${grant.id}`, { token: am })).status).toBe(204);
      await streamingEnds(say, texts, since);
      const client = await one.login('client@acme.demo.invalid', PASSWORD);
      const conversationId = (await one.post('/api/conversations', { message: 'help' }, { token: client })).body.id as string;
      expect((await one.post(`/api/conversations/${conversationId}/escalate`, { reason: 'a person' }, { token: client })).status).toBe(201);
      await sleep(500);
      expect(queue.some((item) => item.conversationId === conversationId)).toBe(false);
    });

    it('a logout disconnects the sockets of that session only; a logout of every session, all of them', async () => {
      const victim = await person('org_member');
      const [ending, staying] = await sessionTokens(two, victim.email, FRESH_PASSWORD, 2);
      const endingSocket = await onTwo(ending!.token);
      const stayingSocket = await onTwo(staying!.token);
      let since = Date.now();
      // What POST /auth/logout does, on instance 1 (its tokens are signed with keys of its own).
      await one.running.app.get(SessionsService).end([ending!.sessionId], 'logout');
      await disconnected(endingSocket);
      expect(Date.now() - since).toBeLessThan(5000);
      await sleep(300);
      expect(stayingSocket.connected).toBe(true);

      since = Date.now();
      expect((await one.post('/api/auth/logout', { all: true }, { token: await one.login(victim.email, FRESH_PASSWORD) })).status).toBe(204);
      await disconnected(stayingSocket);
      expect(Date.now() - since).toBeLessThan(5000);
    });

    it(`counts a user's sockets over both instances: at most ${MAX_SOCKETS_PER_USER}`, async () => {
      const user = await person('org_member');
      const tokens = { one: await one.login(user.email, FRESH_PASSWORD), two: user.token };
      for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) sockets.push(await (i % 2 ? connectSocket(one.url, tokens.one) : connectSocket(two.url, tokens.two)));
      expect((await refusalOf(one.url, tokens.one)).data).toEqual({ code: 'too_many_sockets', limit: MAX_SOCKETS_PER_USER });
      expect((await refusalOf(two.url, tokens.two)).data).toEqual({ code: 'too_many_sockets', limit: MAX_SOCKETS_PER_USER });
    });
  });
});
