import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One request a vendor stand-in received. */
export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server that records each request (body read whole) in `log`, then lets `handle` answer it. */
export function recordingServer(log: RecordedCall[], handle: (call: RecordedCall, res: ServerResponse) => void): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      log.push(call);
      handle(call, res);
    });
  });
}

/** Listens on a loopback address (127.0.0.2 serves as "another host"); answers the port. */
export function listenOn(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)));
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
