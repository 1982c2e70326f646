import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCache, type SenderConfig } from './outbound.senders.js';

describe('TokenCache (the enterprise-chat connector token)', () => {
  let server: Server;
  let url: string;
  const requests: string[] = [];
  let answer = { status: 200, body: { access_token: 'tok-1', expires_in: 3600 } as Record<string, unknown> };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        requests.push(body);
        // Slow enough that every caller below asks while this request is in flight.
        setTimeout(() => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)), 50);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const config = (): SenderConfig => ({ enterpriseChatAppId: 'app', enterpriseChatAppPassword: 'secret', enterpriseChatTokenUrl: url, requestTimeoutMs: 5000 }) as SenderConfig;

  it('makes one client-credentials request for callers that ask at once, then serves the cached token', async () => {
    requests.length = 0;
    const cache = new TokenCache(config());
    const tokens = await Promise.all(Array.from({ length: 5 }, () => cache.get()));
    expect(tokens).toEqual(Array(5).fill('tok-1'));
    expect(await cache.get()).toBe('tok-1');
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(requests[0]))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'app',
      client_secret: 'secret',
      scope: 'https://api.botframework.com/.default',
    });
  });

  it('lets every waiting caller see a failed request, and asks again on the next call', async () => {
    requests.length = 0;
    const cache = new TokenCache(config());
    answer = { status: 500, body: {} };
    const results = await Promise.allSettled([cache.get(), cache.get()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    answer = { status: 200, body: { access_token: 'tok-2', expires_in: 3600 } };
    expect(await cache.get()).toBe('tok-2');
    expect(requests).toHaveLength(2);
  });
});
