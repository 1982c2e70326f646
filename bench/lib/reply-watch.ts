import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'socket.io-client';
import { connectOne } from './socket-latency.js';

/**
 * One socket that counts the `agent_message_sent` events of some orgs, by reply id. Connected as
 * an internal user whose org rooms hold those orgs (an account manager joins `org:<orgId>` for
 * every org it is the assigned AM of, when it connects).
 */
export interface ReplyWatch {
  /** Deliveries per reply id (of the watched orgs). */
  readonly received: Map<string, number>;
  /** Events of other orgs, or without a message id. */
  readonly foreign: number;
  /** Disconnections while watching. */
  readonly disconnects: string[];
  /**
   * Waits until every id has arrived, or `graceMs` without a new event; then closes the socket.
   * Ids still to be read (a function): waits for `graceMs` without a new event, closes the socket,
   * then reads them (the embedded database: read once its server has stopped).
   */
  finish(expectedIds: string[] | (() => Promise<string[]>), graceMs: number): Promise<PushCounts>;
}

export interface PushCounts {
  expected: number;
  received: number;
  /** Expected, never received. */
  lost: number;
  /** Extra deliveries of one reply. */
  duplicated: number;
  /** Received, not among the expected. */
  unexpected: number;
  foreign: number;
  disconnects: string[];
}

interface MessageEvent {
  orgId?: unknown;
  message?: { id?: unknown; role?: unknown } | null;
}

export async function watchReplies(baseUrl: string, watcher: { id: string; token: string }, orgIds: string[]): Promise<ReplyWatch> {
  const orgs = new Set(orgIds);
  const received = new Map<string, number>();
  const disconnects: string[] = [];
  let foreign = 0;
  let lastEventAt = performance.now();
  let closing = false;
  const socket: Socket = await connectOne(baseUrl, watcher, 20_000);
  socket.on('agent_message_sent', (event: MessageEvent) => {
    lastEventAt = performance.now();
    const id = event?.message?.id;
    if (typeof id !== 'string' || typeof event.orgId !== 'string' || !orgs.has(event.orgId)) {
      foreign++;
      return;
    }
    received.set(id, (received.get(id) ?? 0) + 1);
  });
  socket.on('disconnect', (reason) => {
    if (!closing) disconnects.push(reason);
  });
  return {
    received,
    get foreign() {
      return foreign;
    },
    disconnects,
    async finish(ids, graceMs) {
      const waitStart = performance.now();
      while (performance.now() - Math.max(lastEventAt, waitStart) < graceMs) {
        if (Array.isArray(ids) && ids.every((id) => received.has(id))) break;
        await sleep(50);
      }
      // A little longer, so that a late duplicate is still seen.
      await sleep(250);
      closing = true;
      socket.disconnect();
      const expected = new Set(Array.isArray(ids) ? ids : await ids());
      let got = 0;
      let duplicated = 0;
      let unexpected = 0;
      for (const [id, n] of received) {
        if (expected.has(id)) got++;
        else unexpected++;
        duplicated += n - 1;
      }
      return { expected: expected.size, received: got, lost: expected.size - got, duplicated, unexpected, foreign, disconnects };
    },
  };
}
