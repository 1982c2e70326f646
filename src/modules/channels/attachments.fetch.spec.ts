import { lookup as dnsLookup } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttachmentFetcher, AttachmentRefused, MAX_ATTACHMENT_BYTES, contentContradicts, isPublicAddress } from './attachments.fetch.js';

/** A loopback HTTP server that records every request it receives. */
async function loopback(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Array<{ path: string; authorization?: string }> = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '/', authorization: req.headers.authorization });
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    seen,
    port,
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AttachmentRefused) return err.reason;
    throw err;
  }
  throw new Error('the fetch was not refused');
}

/** Resolves the test's own names to the given address; everything else through DNS. */
const fakeDns =
  (names: Record<string, string>): LookupFunction =>
  (hostname, options, callback) => {
    const address = names[hostname];
    if (address === undefined) return (dnsLookup as LookupFunction)(hostname, options, callback);
    if (options.all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.1.2.3', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['fc12:3456::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['2002:7f00:1::1', false],
    ['not an address', false],
    ['8.8.8.8', true],
    ['172.32.0.1', true],
    ['100.128.0.1', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s -> %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('contentContradicts', () => {
  it.each([
    ['application/pdf', 'text/html; charset=utf-8', true],
    ['image/png', 'application/xhtml+xml', true],
    ['image/png', 'text/plain', true],
    ['audio/ogg', 'video/mp4', true],
    ['text/html', 'text/html', false],
    ['application/pdf', 'application/pdf', false],
    ['text/plain', 'text/plain; charset=utf-8', false],
    ['image/jpeg', 'application/octet-stream', false],
    ['audio/ogg', 'application/ogg', false],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/zip', false],
    ['text/csv', 'text/plain', false],
    ['image/png', undefined, false],
  ])('%s answered as %s -> %s', (expected, received, contradicts) => {
    expect(contentContradicts(expected, received)).toBe(contradicts);
  });
});

describe('AttachmentFetcher (API-MAP "Channel bindings and vendor traffic")', () => {
  const fetchers: AttachmentFetcher[] = [];
  const fetcher = (hosts: string[], lookup?: LookupFunction) => {
    const f = new AttachmentFetcher({ hosts, lookup });
    fetchers.push(f);
    return f;
  };
  let files: Awaited<ReturnType<typeof loopback>>;
  let internal: Awaited<ReturnType<typeof loopback>>;

  beforeAll(async () => {
    internal = await loopback((_req, res) => res.end('internal secrets'));
    files = await loopback((req, res) => {
      const path = req.url ?? '/';
      if (path === '/to-internal') return res.writeHead(302, { location: `${internal.url}/admin` }).end();
      if (path === '/to-relative') return res.writeHead(301, { location: '/file.txt' }).end();
      if (path.startsWith('/loop')) return res.writeHead(302, { location: `/loop${path.length}` }).end();
      if (path === '/endless') {
        // Streams until the reader hangs up: the fetch must cut it, not buffer it.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        const write = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', write);
        };
        return write();
      }
      if (path === '/declared-too-big') return res.writeHead(200, { 'content-length': String(MAX_ATTACHMENT_BYTES + 1) }).end();
      if (path === '/missing') return res.writeHead(404).end();
      if (path === '/sign-in') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html><title>Sign in</title></html>');
      if (path === '/notes.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('notes');
      if (path === '/report.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
      res.end('the file');
    });
  });
  afterEach(async () => {
    await Promise.all(fetchers.splice(0).map((f) => f.close()));
    files.seen.length = 0;
    internal.seen.length = 0;
  });
  afterAll(async () => {
    await files.close();
    await internal.close();
  });

  it('refuses a host that is not listed, before any request reaches it', async () => {
    expect(await refusal(fetcher(['files.slack.com']).fetch({ url: `${internal.url}/admin` }))).toBe('host_not_allowed');
    // The same address on another port is another host.
    expect(await refusal(fetcher([`127.0.0.1:${files.port}`]).fetch({ url: `${internal.url}/admin` }))).toBe('host_not_allowed');
    // No port listed means the scheme's default port only.
    expect(await refusal(fetcher(['127.0.0.1']).fetch({ url: `${internal.url}/admin` }))).toBe('host_not_allowed');
    expect(await refusal(fetcher([internal.host]).fetch({ url: `file:///etc/passwd` }))).toBe('bad_url');
    expect(await refusal(fetcher([internal.host]).fetch({ url: `http://user:pw@${internal.host}/admin` }))).toBe('bad_url');
    expect(internal.seen).toHaveLength(0);
  });

  it('fetches from a listed host, with the channel credential', async () => {
    const data = await fetcher([files.host]).fetch({ url: `${files.url}/file.txt`, headers: { authorization: 'Bearer bot-token' } });
    expect(data.toString()).toBe('the file');
    expect(files.seen).toEqual([{ path: '/file.txt', authorization: 'Bearer bot-token' }]);
  });

  it('re-checks every redirect: a listed host redirecting to an unlisted one is refused, and that one never hears of it', async () => {
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/to-internal` }))).toBe('host_not_allowed');
    expect(internal.seen).toHaveLength(0);
    // A redirect on the listed host is followed; the credential stays with its origin.
    expect((await fetcher([files.host]).fetch({ url: `${files.url}/to-relative`, headers: { authorization: 'Bearer bot-token' } })).toString()).toBe('the file');
    expect(files.seen.map((s) => s.path)).toEqual(['/to-internal', '/to-relative', '/file.txt']);
  });

  it('does not send the credential to another listed origin it is redirected to', async () => {
    const data = await fetcher([files.host, internal.host]).fetch({ url: `${files.url}/to-internal`, headers: { authorization: 'Bearer bot-token' } });
    expect(data.toString()).toBe('internal secrets');
    expect(internal.seen).toEqual([{ path: '/admin', authorization: undefined }]);
  });

  it("refuses an HTML page for a file that is not HTML (a vendor's sign-in page), and an answer of another media kind", async () => {
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/sign-in`, contentType: 'application/pdf' }))).toBe('content_mismatch');
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/notes.txt`, contentType: 'image/png' }))).toBe('content_mismatch');
    expect((await fetcher([files.host]).fetch({ url: `${files.url}/report.pdf`, contentType: 'application/pdf' })).toString()).toBe('%PDF-1.4');
    expect((await fetcher([files.host]).fetch({ url: `${files.url}/sign-in`, contentType: 'text/html' })).toString()).toContain('Sign in');
  });

  it('follows a few redirects at most', async () => {
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/loop` }))).toBe('too_many_redirects');
    expect(files.seen).toHaveLength(4);
  });

  it('cuts a body past 10 MB while streaming, and refuses it (declared or not)', async () => {
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/endless` }))).toBe('too_large');
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/declared-too-big` }))).toBe('too_large');
    expect(await refusal(fetcher([files.host]).fetch({ url: `${files.url}/missing` }))).toBe('bad_status');
  });

  it('refuses a listed name that resolves to a loopback or private address', async () => {
    const dns = fakeDns({ 'files.vendor.test': '127.0.0.1', 'cdn.vendor.test': '10.0.0.7', localhost: '127.0.0.1' });
    const f = fetcher([`files.vendor.test:${files.port}`, `*.vendor.test:${files.port}`, `localhost:${files.port}`], dns);
    expect(await refusal(f.fetch({ url: `http://files.vendor.test:${files.port}/file.txt` }))).toBe('private_address');
    expect(await refusal(f.fetch({ url: `http://cdn.vendor.test:${files.port}/file.txt` }))).toBe('private_address');
    expect(files.seen).toHaveLength(0);
    // A host listed as a private one itself (localhost, an IP address) may be reached.
    expect((await f.fetch({ url: `http://localhost:${files.port}/file.txt` })).toString()).toBe('the file');
  });

  it('refuses an IP address in a non-public range unless that address is listed', async () => {
    // A wildcard cannot list an address; 127.0.0.1 reached through a listed public name is refused above.
    expect(await refusal(fetcher([`*.0.0.1:${files.port}`]).fetch({ url: `${files.url}/file.txt` }))).toBe('private_address');
    expect(files.seen).toHaveLength(0);
  });
});
