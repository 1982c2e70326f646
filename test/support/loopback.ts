import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** One request a loopback stand-in received, with what its contract check found wrong with it. */
export interface ReceivedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** Departures from the vendor's documented API shape; empty when the call is as documented. */
  problems: string[];
}

export interface Answer {
  status: number;
  body: string | Buffer | object;
  type?: string;
}

export interface Loopback {
  url: string;
  /** `127.0.0.1:<port>`: what ATTACHMENT_HOSTS lists for it. */
  host: string;
  calls: ReceivedCall[];
  /** Every contract problem of every call, prefixed with its method and path. */
  problems(): string[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server standing in for a vendor API: each request is recorded, handed to the
 * vendor's handler (which answers as the vendor documents and notes each departure from the
 * documented shape in `problems`), and anything it does not know answers 404 as a problem.
 */
export async function startLoopback(handle: (call: ReceivedCall) => Answer | undefined): Promise<Loopback> {
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      const call: ReceivedCall = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), problems: [] };
      calls.push(call);
      let answer: Answer | undefined;
      try {
        answer = handle(call);
      } catch (err) {
        call.problems.push(`the stand-in failed: ${String(err)}`);
      }
      if (!answer) {
        call.problems.push('no such endpoint');
        answer = { status: 404, body: { ok: false, error: 'unknown_method' } };
      }
      write(res, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    calls,
    problems: () => calls.flatMap((c) => c.problems.map((p) => `${c.method} ${c.path}: ${p}`)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function write(res: ServerResponse, answer: Answer): void {
  const json = typeof answer.body === 'object' && !Buffer.isBuffer(answer.body);
  res.writeHead(answer.status, { 'content-type': answer.type ?? (json ? 'application/json; charset=utf-8' : 'text/plain') });
  res.end(json ? JSON.stringify(answer.body) : answer.body);
}

/** The media type of a Content-Type header, without its parameters. */
export function mediaTypeOf(headers: IncomingHttpHeaders): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Notes each key of a request body that the vendor's method does not document. */
export function unknownKeys(body: Record<string, unknown>, documented: readonly string[], problems: string[]): void {
  for (const key of Object.keys(body)) if (!documented.includes(key)) problems.push(`undocumented body field ${key}`);
}
