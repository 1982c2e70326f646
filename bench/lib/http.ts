import http from 'node:http';
import { describeFetchError } from './process.js';

export interface HttpAnswer {
  status: number;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** One request with a timeout; never throws on a status, only on a transport failure. */
export async function request(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body,
      signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
    });
  } catch (err) {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${describeFetchError(err)}`, { cause: err });
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** The start of a body, on one line, for error messages. */
export function snippet(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat || '<empty body>';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An answer of `postRaw`: status, headers and body text. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One POST of a body already serialized, through a keep-alive `node:http` agent (the load senders
 * bound their sockets with it): resolves with any status, rejects on a transport error or timeout.
 */
export function postRaw(agent: http.Agent, url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
