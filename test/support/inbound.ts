import { sql } from 'drizzle-orm';
import { vi } from 'vitest';
import { rows } from './rows.js';
import type { DbService } from '../../src/platform/db/db.service.js';
import { ARTIFACT_STORAGE, type ArtifactStorage } from '../../src/modules/conversations/artifacts.storage.js';
import { IngressLoad } from '../../src/modules/channels/ingress-load.js';
import type { TestApp } from './test-app.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { rows } from './rows.js';

/** Waits until `check` gives a value, or fails saying what was awaited. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Runs `check` with the app's inbound worker held at its first step (where it gives way to the
 * webhooks), so that no admitted event can leave the queue while the check runs: for tests that
 * count what the door admits. A refusal for a full queue lets the worker process at once
 * (IngressLoad), so without the hold any event that ends during a burst (done, failed,
 * quarantined) makes room for one more, even with the model hanging.
 */
export async function withInboundWorkerHeld(app: TestApp, check: () => Promise<void>): Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const spy = vi.spyOn(app.running.app.get(IngressLoad), 'quiet').mockImplementation(() => held);
  try {
    await check();
  } finally {
    spy.mockRestore();
    release();
  }
}

export interface InboundEvent {
  status: string;
  reason: string | null;
  conversation_id: string | null;
  org_id: string | null;
  last_error: string | null;
}

/** An inbound event once the worker has finished with it. */
export function processedEvent(db: DbService, channel: string, eventKey: string): Promise<InboundEvent> {
  return eventually(`inbound event ${channel} ${eventKey}`, async () => {
    const [row] = await rows<InboundEvent>(db, sql`select status, reason, conversation_id, org_id, last_error from inbound_events where channel = ${channel} and event_key = ${eventKey}`);
    return row && row.status !== 'queued' && row.status !== 'processing' ? row : undefined;
  });
}

export function conversationMessages(db: DbService, conversationId: string) {
  return rows<{ id: string; role: string; content: string }>(db, sql`select id, role, content from conversation_messages where conversation_id = ${conversationId} order by created_at, id`);
}

export interface StoredArtifact {
  id: string;
  name: string;
  content_type: string;
  size: number;
  bytes: Buffer;
}

/** The artifacts kept with a conversation, each with the bytes the artifacts storage holds for it. */
export async function conversationArtifacts(app: TestApp, db: DbService, conversationId: string): Promise<StoredArtifact[]> {
  const storage = app.running.app.get<ArtifactStorage>(ARTIFACT_STORAGE);
  const found = await rows<Omit<StoredArtifact, 'bytes'> & { storage_key: string }>(
    db,
    sql`select id, name, content_type, size::int as size, storage_key from conversation_artifacts where conversation_id = ${conversationId} order by created_at, id`,
  );
  return Promise.all(found.map(async ({ storage_key, ...a }) => ({ ...a, bytes: await storage.get(storage_key) })));
}
