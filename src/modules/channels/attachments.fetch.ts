import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Agent, request } from 'undici';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENT_REDIRECTS = 3;
const ATTACHMENT_TIMEOUT_MS = 15_000;

/**
 * Why an attachment was not fetched; recorded with the message, which still gets its turn.
 * `content_mismatch`: the host answered something other than the file (a sign-in page);
 * `unavailable`: the vendor says the file cannot be downloaded (deleted, hidden, no credential).
 */
export type AttachmentRefusal = 'bad_url' | 'host_not_allowed' | 'private_address' | 'too_many_redirects' | 'too_large' | 'bad_status' | 'unreachable' | 'content_mismatch' | 'unavailable';

export class AttachmentRefused extends Error {
  constructor(
    readonly reason: AttachmentRefusal,
    readonly host: string,
    /** What the org needs to act on (never a credential): shown with the reason in the event's note. */
    readonly detail?: string,
  ) {
    super(`attachment refused (${reason}) from ${host}`);
  }
}

const mediaType = (value: string): string => value.split(';')[0]!.trim().toLowerCase();
const HTML = new Set(['text/html', 'application/xhtml+xml']);
const KINDS = new Set(['image', 'audio', 'video', 'text']);

/**
 * Whether a file host's Content-Type contradicts the type the vendor's message gave the file: an
 * HTML page where a non-HTML file was expected (a vendor's sign-in page answered with 200 when the
 * credential is missing or wrong), or another kind of media (an image where text was expected).
 * A generic or missing type, and any two `application/*` types, never contradict.
 */
export function contentContradicts(expected: string, received: string | undefined): boolean {
  if (!received) return false;
  const [want, got] = [mediaType(expected), mediaType(received)];
  if (want === got || got === 'application/octet-stream' || got === 'binary/octet-stream') return false;
  if (HTML.has(got)) return !HTML.has(want);
  const [wantKind, gotKind] = [want.split('/')[0]!, got.split('/')[0]!];
  return KINDS.has(wantKind) && KINDS.has(gotKind) && wantKind !== gotKind;
}

/** Addresses no attachment may come from unless the operator lists that very address. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32],
  ['100::', 64], // discard
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4): judged by that address. */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour) {
    const [hi, lo] = [parseInt(sixToFour[1]!, 16), parseInt(sixToFour[2]!, 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** A public unicast address: not private, loopback, link-local, unique-local, CGNAT, unspecified or reserved. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return !NOT_PUBLIC.check(address, 'ipv6');
}

interface HostRule {
  /** A lowercase host name or IP address; with `wildcard`, the domain whose subdomains match. */
  host: string;
  wildcard: boolean;
  port?: number;
  /** The rule names a private address itself (an IP literal, or localhost): private answers are fine there. */
  privateOk: boolean;
}

function parseRule(entry: string): HostRule {
  const m = /^(\*\.)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim().toLowerCase());
  if (!m) throw new Error(`not a host[:port]: ${entry}`);
  const host = m[2]!.replace(/^\[|\]$/g, '');
  return { host, wildcard: Boolean(m[1]), port: m[3] ? Number(m[3]) : undefined, privateOk: !m[1] && (isIP(host) !== 0 || host === 'localhost') };
}

export interface AttachmentFetcherOptions {
  /** ATTACHMENT_HOSTS: `host[:port]`, a leading `*.` matching subdomains; no port = the scheme's default. */
  hosts: readonly string[];
  /** The resolver; DNS by default (a test injects its own). */
  lookup?: LookupFunction;
  maxBytes?: number;
  timeoutMs?: number;
}

export interface AttachmentRequest {
  url: string;
  /** Sent to the first URL only, and to redirects that stay on its origin (a channel's credential). */
  headers?: Record<string, string>;
  /** The file's type as the vendor's message gives it: an answer that contradicts it is refused unread (`content_mismatch`). */
  contentType?: string;
}

/**
 * Fetches inbound attachments without letting a message reach anything else (API-MAP "Channel
 * bindings and vendor traffic"): only hosts of ATTACHMENT_HOSTS, and never a private, loopback,
 * link-local or otherwise non-public address unless the listed entry is that address itself.
 * The address is checked where the connection is made (the agent's DNS lookup), so a name cannot
 * resolve one way for the check and another for the connection. Redirects are followed by hand,
 * each checked the same way; the body is streamed and refused past the size cap.
 */
export class AttachmentFetcher {
  private readonly rules: HostRule[];
  /** undici and its agent, made with the first fetch (about 110 modules that a start need not load). */
  private client?: Promise<{ agent: Agent; request: typeof request }>;
  private readonly lookup: LookupFunction;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(options: AttachmentFetcherOptions) {
    this.rules = options.hosts.map(parseRule);
    this.maxBytes = options.maxBytes ?? MAX_ATTACHMENT_BYTES;
    this.timeoutMs = options.timeoutMs ?? ATTACHMENT_TIMEOUT_MS;
    this.lookup = this.checkedLookup(options.lookup ?? (dnsLookup as LookupFunction));
  }

  private undici(): Promise<{ agent: Agent; request: typeof request }> {
    this.client ??= import('undici').then(({ Agent, request }) => ({ agent: new Agent({ connect: { lookup: this.lookup }, connections: 8 }), request }));
    return this.client;
  }

  async fetch(req: AttachmentRequest): Promise<Buffer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let url = this.checked(req.url);
    const { agent, request } = await this.undici();
    const origin = url.origin;
    for (let hop = 0; ; hop++) {
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, { dispatcher: agent, method: 'GET', headers: url.origin === origin ? req.headers : undefined, signal });
      } catch (err) {
        throw refusalIn(err) ?? new AttachmentRefused('unreachable', url.host);
      }
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        discard(res.body);
        if (hop >= MAX_ATTACHMENT_REDIRECTS) throw new AttachmentRefused('too_many_redirects', url.host);
        const location = Array.isArray(res.headers.location) ? res.headers.location[0]! : res.headers.location;
        url = this.checked(location, url);
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        discard(res.body);
        throw new AttachmentRefused('bad_status', url.host, `HTTP ${res.statusCode}`);
      }
      const received = [res.headers['content-type']].flat()[0];
      if (req.contentType !== undefined && contentContradicts(req.contentType, received)) {
        discard(res.body);
        throw new AttachmentRefused('content_mismatch', url.host, `${mediaType(received!)} where ${mediaType(req.contentType)} was expected`);
      }
      return this.read(res.body, url.host, Number(res.headers['content-length'] ?? NaN));
    }
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.close();
  }

  private async read(body: Body, host: string, declared: number): Promise<Buffer> {
    if (declared > this.maxBytes) {
      discard(body);
      throw new AttachmentRefused('too_large', host);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.maxBytes) throw new AttachmentRefused('too_large', host);
        chunks.push(chunk);
      }
    } catch (err) {
      discard(body);
      throw err instanceof AttachmentRefused ? err : new AttachmentRefused('unreachable', host);
    }
    return Buffer.concat(chunks, size);
  }

  /** The URL when its scheme, host and port are allowed; an IP literal is judged here (no lookup follows). */
  private checked(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new AttachmentRefused('bad_url', base?.host ?? '');
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) throw new AttachmentRefused('bad_url', url.host);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const rule = this.rules.find((r) => (r.wildcard ? host.endsWith(`.${r.host}`) : host === r.host) && (r.port === undefined ? !url.port : r.port === port));
    if (!rule) throw new AttachmentRefused('host_not_allowed', url.host);
    if (isIP(host) !== 0 && !rule.privateOk && !isPublicAddress(host)) throw new AttachmentRefused('private_address', url.host);
    return url;
  }

  /** The agent's resolver: every answer for a name must be public, unless the name is listed as a private one. */
  private checkedLookup(resolve: LookupFunction): LookupFunction {
    const privateNames = new Set(this.rules.filter((r) => r.privateOk).map((r) => r.host));
    return (hostname, options, callback) => {
      resolve(hostname, { ...options, all: true }, (err, answer) => {
        if (err) return callback(err, '', 0);
        const addresses = (Array.isArray(answer) ? answer : [{ address: answer, family: isIP(answer) }]) as LookupAddress[];
        if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (!privateNames.has(hostname.toLowerCase()) && addresses.some((a) => !isPublicAddress(a.address))) {
          return callback(new AttachmentRefused('private_address', hostname), '', 0);
        }
        if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
  }
}

type Body = Awaited<ReturnType<typeof request>>['body'];

/** Drops a body unread: the connection is closed, and the abort it reports goes nowhere. */
function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

function refusalIn(err: unknown): AttachmentRefused | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AttachmentRefused) return e;
  }
  return undefined;
}
