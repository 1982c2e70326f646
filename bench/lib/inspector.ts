import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { ChildHandle } from './process.js';

/*
 * The V8 heap a server still holds after a full garbage collection, read from outside through
 * Node's inspector: the one reading of its memory that does not depend on when V8 last collected.
 * The bench starts its servers with `--inspect-port=127.0.0.1:0` (INSPECT_PORT_ARG), which opens
 * nothing; SIGUSR1 then opens the inspector on a free loopback port, which Node prints on stderr.
 * The inspector stays open, without a session, until the server stops.
 */

/** Node's argument for a server the bench may open the inspector of: a free loopback port, once asked. */
export const INSPECT_PORT_ARG = '--inspect-port=127.0.0.1:0';

const LISTENING = /Debugger listening on (ws:\/\/\S+)/;

export interface HeapReader {
  /** Collects all garbage, then answers the V8 heap in use (MB); null when the inspector does not answer. */
  heapAfterGcMb(): Promise<number | null>;
  close(): void;
}

/** Opens the server's inspector (SIGUSR1) and a session on it; null when it does not open in time. */
export async function openHeapReader(server: ChildHandle, timeoutMs = 5_000): Promise<HeapReader | null> {
  let url = await listeningUrl(server, 0);
  if (!url) {
    process.kill(server.pid, 'SIGUSR1');
    url = await listeningUrl(server, timeoutMs);
  }
  if (!url) return null;
  const ws = new WebSocket(url);
  const opened = await new Promise<boolean>((resolve) => {
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
  });
  if (!opened) return null;
  type Reply = { result?: unknown; error?: unknown };
  let nextId = 0;
  const pending = new Map<number, (reply: Reply) => void>();
  ws.on('message', (data) => {
    const reply = JSON.parse(String(data)) as Reply & { id?: number };
    if (reply.id === undefined) return;
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  const call = (method: string, params: object = {}) =>
    Promise.race<Reply>([
      new Promise<Reply>((resolve) => {
        pending.set(++nextId, resolve);
        ws.send(JSON.stringify({ id: nextId, method, params }));
      }),
      sleep(30_000, { error: 'no answer' }),
    ]);
  return {
    async heapAfterGcMb() {
      if (ws.readyState !== WebSocket.OPEN) return null;
      const collected = await call('HeapProfiler.collectGarbage');
      if (collected.error) return null;
      const answer = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
      const value = (answer.result as { result?: { value?: unknown } } | undefined)?.result?.value;
      return typeof value === 'number' ? Math.round((value / 1024 / 1024) * 10) / 10 : null;
    },
    close: () => ws.close(),
  };
}

async function listeningUrl(server: ChildHandle, timeoutMs: number): Promise<string | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const match = LISTENING.exec(server.tail(200));
    if (match) return match[1]!;
    if (Date.now() >= until || !server.isRunning()) return null;
    await sleep(50);
  }
}
