import { request as httpRequest } from 'node:http';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A small HTTP client for end-to-end tests: real requests over the network stack. */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }

  async login(email: string, password: string): Promise<string> {
    const res = await this.post<{ token: string }>('/api/auth/login', { email, password });
    if (res.status !== 200) throw new Error(`login ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token;
  }

  async demoLogin(role: string, orgSlug?: string): Promise<string> {
    const res = await this.post<{ token: string }>('/api/auth/demo-login', { role, orgSlug });
    if (res.status !== 200) throw new Error(`demo-login ${role} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token;
  }
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** One request exactly as given (redirects not followed); the body parsed when it is JSON. */
export async function rawRequest(url: string, init: RequestInit): Promise<RawAnswer> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  let body: unknown = text;
  try {
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text) body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * A JSON POST sent from a given local address (127.0.0.2, ...): on loopback every 127/8 address
 * reaches the service, which sees that address as the client IP without any proxy header.
 */
export function postFromAddress<T = any>(localAddress: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
  const data = JSON.stringify(body);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          const json = (res.headers['content-type'] ?? '').includes('json') && text;
          resolve({ status: res.statusCode!, headers: responseHeaders, body: (json ? JSON.parse(text) : text) as T });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
