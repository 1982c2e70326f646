import { createServer } from 'node:net';

/** Asks the OS for a free TCP port on the loopback interface (there is a small race until it is bound again). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a probe socket'));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Whether a TCP port of the loopback interface can be bound now. */
function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports (start:cluster puts its instances on PORT, PORT+1, ...); the first one. */
export async function freeConsecutivePorts(count: number, host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await freePort(host);
    if (first + count - 1 > 65535) continue;
    let all = true;
    for (let port = first + 1; port < first + count && all; port++) all = await canBind(port, host);
    if (all) return first;
  }
  throw new Error(`found no ${count} consecutive free ports`);
}
