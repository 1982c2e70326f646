import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Looks at a request before anyone else; true when it answered the request itself. */
export type DoorKeeper = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Makes `keeper` the server's first look at every request: it runs before the request listeners
 * already there (fastify's, and Socket.IO's in front of it, which answers its own requests), and a
 * request it answers itself never reaches them. Call once every listener is attached (after
 * `app.init()`).
 */
export function frontDoor(server: Server, keeper: DoorKeeper): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (keeper(req, res)) return;
    for (let i = 0; i < listeners.length; i++) listeners[i]!.call(server, req, res);
  });
}
